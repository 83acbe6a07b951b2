import { fieldErrors, ThrongError } from "@throng/protocol/errors";
import { PlanSpec } from "@throng/protocol/plan";

/**
 * A plan as read back from a row, parsed here once so core only ever sees a typed PlanSpec. A stored plan the schema no
 * longer accepts (saved by an older Throng, or edited in the database) is a named error naming the row and the field,
 * not a ZodError from somewhere deep in core.
 */
export function readStoredPlan(spec: unknown, whose: string): PlanSpec {
  const parsed = PlanSpec.safeParse(spec);
  if (parsed.success) return parsed.data;
  const fields = fieldErrors(parsed.error);
  const first = fields[0];
  throw new ThrongError(
    "internal",
    `The stored plan of ${whose} no longer reads as a plan (${first ? `${first.path}: ${first.message}` : "invalid"}); it was saved by another Throng version or changed in the database: save the plan again`,
    fields,
  );
}
