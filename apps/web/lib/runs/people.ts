// People as the pages name them: a member by their name, anything else (an API token, a schedule, a user since
// deleted) by how the API recorded it. Never an email's local part ("ux1795738370744"), which names no one.

/** "Ann Lee" for a member the API named; else the recorded actor whole ("token ci", "schedule", "ann@example.com"). */
export function personName(actor: string, name?: string | null): string {
  return name?.trim() || actor;
}
