// GET /api/runs: which runs, a page at a time, filtered by the database rather than in the browser.
import { z } from "zod";
import { VerdictOutcome } from "./report";
import { RunStatus, RunView } from "./run";
import { RunTag } from "./run-notes";

/** Runs a page holds when the caller does not say; the most it may ask for. */
export const DEFAULT_RUNS_LIMIT = 100;
export const MAX_RUNS_LIMIT = 100;

const whole = (name: string, min: number, max: number) =>
  z.coerce
    .number({ message: `${name} must be a whole number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

/** The query string of GET /api/runs (the web's runs list, Home); every filter optional, newest runs first. */
export const RunsQuery = z
  .object({
    status: RunStatus.optional(),
    /** The stored verdict's outcome: passed, breached, incomplete, aborted, failed. */
    outcome: VerdictOutcome.optional(),
    /** Only runs of this plan. */
    plan: z.string().uuid("plan must be a plan id").optional(),
    /** Only runs carrying this tag. */
    tag: RunTag.optional(),
    /** Created at or after this instant (ISO 8601 with a zone, e.g. 2026-11-24T00:00:00.000Z). */
    createdFrom: z
      .string()
      .datetime({ offset: true, message: "createdFrom must be an ISO 8601 date-time, e.g. 2026-11-24T00:00:00Z" })
      .optional(),
    /** Created before this instant. */
    createdBefore: z
      .string()
      .datetime({ offset: true, message: "createdBefore must be an ISO 8601 date-time, e.g. 2026-11-25T00:00:00Z" })
      .optional(),
    /** 1 is the newest page. */
    page: whole("page", 1, 1_000_000).default(1),
    limit: whole("limit", 1, MAX_RUNS_LIMIT).default(DEFAULT_RUNS_LIMIT),
  })
  .strict();
export type RunsQuery = z.infer<typeof RunsQuery>;

/** GET /api/runs answers one page of the matching runs, and how many match over every page. */
export const RunPage = z.object({
  runs: z.array(RunView),
  matching: z.number().int().min(0),
  page: z.number().int().min(1),
  pages: z.number().int().min(1),
  limit: z.number().int().min(1),
});
export type RunPage = z.infer<typeof RunPage>;
