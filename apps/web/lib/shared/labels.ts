import { AgentLabels } from "@throng/protocol/api";
import type { FieldError } from "@throng/protocol/errors";

/** One key=value row of a label editor; `id` keeps React's keys stable while rows are typed. */
export interface LabelRow {
  id: number;
  key: string;
  value: string;
}

let nextRowId = 1;

export function labelRow(key = "", value = ""): LabelRow {
  return { id: nextRowId++, key, value };
}

export function rowsFromLabels(labels: Readonly<Record<string, string>>): LabelRow[] {
  return Object.entries(labels).map(([key, value]) => labelRow(key, value));
}

/** Errors per row id; `form` holds what belongs to no single row. */
export type LabelErrors = Record<number, string> & { form?: string };

export type LabelCheck = { ok: true; labels: Record<string, string> } | { ok: false; errors: LabelErrors };

/**
 * Turns rows into a label set: blank rows are dropped, a duplicated name is an error on its second row,
 * and names and values are checked with the API's own schema so the message matches a server refusal.
 */
export function labelsFromRows(rows: readonly LabelRow[]): LabelCheck {
  const errors: LabelErrors = {};
  const labels: Record<string, string> = {};
  for (const row of rows) {
    const key = row.key.trim();
    if (key === "" && row.value.trim() === "") continue;
    if (key === "") errors[row.id] = "give the label a name";
    else if (key in labels) errors[row.id] = `${key} is already set above`;
    else labels[key] = row.value.trim();
  }
  const parsed = AgentLabels.safeParse({ labels });
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[1] ?? "");
      const row = rows.find((candidate) => candidate.key.trim() === name);
      // A bad name is reported as "invalid_key" with the regex's own message nested inside.
      const nested = "issues" in issue ? (issue.issues as { message: string }[] | undefined)?.[0]?.message : undefined;
      if (row && !errors[row.id]) errors[row.id] = nested ?? issue.message;
    }
  }
  return Object.keys(errors).length === 0 ? { ok: true, labels } : { ok: false, errors };
}

/** Puts an API 400 (`fields` paths like `labels.region`) on the rows it names. */
export function labelErrorsFromApi(
  rows: readonly LabelRow[],
  fields: readonly FieldError[],
  fallback: string,
): LabelErrors {
  const errors: LabelErrors = {};
  for (const field of fields) {
    const name = field.path.replace(/^labels\.?/, "");
    const row = rows.find((candidate) => candidate.key.trim() === name);
    if (row) errors[row.id] = field.message;
    else
      errors.form = errors.form ? `${errors.form}; ${field.path}: ${field.message}` : `${field.path}: ${field.message}`;
  }
  if (fields.length === 0) errors.form = fallback;
  return errors;
}

/** "region=eu, tier=large" for compact display and for the runs filter. */
export function formatLabels(labels: Readonly<Record<string, string>>): string[] {
  return Object.entries(labels)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => (value === "" ? key : `${key}=${value}`));
}
