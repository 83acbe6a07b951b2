// The plan form's network cohorts (plan.network, docs/networks.md): the names an SLO may be scoped to, and what a new
// cohort starts as. The cohorts' fields, limits and units come from the schema (network.ts) like every other field.
import { MAX_COHORTS } from "@throng/protocol/network";
import type { DraftObject } from "./schema-form";

export { MAX_COHORTS };

const COHORT_NAME = /^[a-z][a-z0-9-]{0,30}$/;

/** The draft's cohort names an SLO may name: those typed so far that the schema would take, each once. */
export function draftCohortNames(draft: DraftObject): string[] {
  const cohorts = Array.isArray(draft.network) ? (draft.network as unknown[]) : [];
  const names = cohorts.map((cohort) =>
    typeof cohort === "object" && cohort !== null ? String((cohort as DraftObject).name ?? "").trim() : "",
  );
  return [...new Set(names.filter((name) => COHORT_NAME.test(name)))];
}

// The names players' networks are usually called by, offered first; then "cohort-N".
const NAMES = ["mobile", "wifi", "satellite"];

/** A new cohort's name: one the draft does not have yet (its other fields start as the schema form's starting values). */
export function newCohortRow(draft: DraftObject): DraftObject {
  const taken = new Set(draftCohortNames(draft));
  const name =
    NAMES.find((candidate) => !taken.has(candidate)) ??
    Array.from({ length: MAX_COHORTS + 1 }, (_, i) => `cohort-${i + 1}`).find((candidate) => !taken.has(candidate))!;
  return { name };
}
