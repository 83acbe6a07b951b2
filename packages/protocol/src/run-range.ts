// A part of a run by its seconds: the zoomed range a page keeps in its URL (`?from=&to=`) and the summary the API
// recomputes for it from the stored per-second histograms (GET /api/runs/:id/summary).
import { z } from "zod";
import { RunSummary } from "./run";

/** The longest run a range may name: a week of seconds, far past any plan's duration. */
export const RANGE_MAX_SECONDS = 7 * 24 * 3600;

/** One end of a range in a query string: whole seconds since the run's start (the distribution's range too). */
export const rangeSecond = (name: "from" | "to") =>
  z
    .string({
      message: `${name} is required: whole seconds since the run's start, e.g. ${name}=${name === "from" ? 12 : 32}`,
    })
    .trim()
    .regex(
      /^\d+$/,
      `${name} must be whole seconds since the run's start (0 or more), e.g. ${name}=${name === "from" ? 12 : 32}`,
    )
    .transform(Number)
    .refine((value) => value <= RANGE_MAX_SECONDS, `${name} must be at most ${RANGE_MAX_SECONDS} seconds`);

/**
 * A range of a run's seconds, as the query string carries it: `from` and `to` are whole seconds since the run's
 * start (`startedAt`); the range holds the seconds from `from` up to, not including, `to`, so it lasts `to - from`.
 */
export const RunRangeQuery = z
  .object({ from: rangeSecond("from"), to: rangeSecond("to") })
  .strict()
  .refine((range) => range.to > range.from, {
    path: ["to"],
    message: "to must be after from (the range holds the seconds from `from` up to `to`)",
  });
export type RunRangeQuery = z.infer<typeof RunRangeQuery>;

/** GET /api/runs/:id/summary answers the run's summary over the range: the whole run's shape, null with no second in it. */
export const RunRangeSummary = z.object({
  runId: z.string(),
  from: z.number().int(),
  to: z.number().int(),
  /** How many of the range's seconds hold measurements. */
  seconds: z.number().int(),
  summary: RunSummary.nullable(),
});
export type RunRangeSummary = z.infer<typeof RunRangeSummary>;
