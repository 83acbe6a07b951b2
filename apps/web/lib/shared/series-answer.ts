import type { RunSeries } from "@throng/protocol/run";
import { SeriesPoint } from "@throng/protocol/snapshot";

type Issue = { path: (string | number)[]; message: string };
type Parsed = { success: true; data: RunSeries } | { success: false; error: { issues: Issue[] } };

/** Every this-many points gets the full schema check, besides the first and the last. */
const SAMPLE_EVERY = 500;

/**
 * Checks GET /api/runs/:id/series without running the full schema over every second: an hour is 3,600 points
 * of nested latencies and per-agent health, and checking each costs the reload hundreds of milliseconds. The
 * first, the last and every 500th point get the full SeriesPoint check (a contract drift shows in all of them);
 * every point must at least be an object with a whole-second `t`.
 */
export const SeriesAnswer = {
  safeParse(input: unknown): Parsed {
    const fail = (path: Issue["path"], message: string): Parsed => ({
      success: false,
      error: { issues: [{ path, message }] },
    });
    if (typeof input !== "object" || input === null) return fail([], "expected an object");
    const { runId, points } = input as { runId?: unknown; points?: unknown };
    if (typeof runId !== "string") return fail(["runId"], "expected a string");
    if (!Array.isArray(points)) return fail(["points"], "expected an array");
    for (let index = 0; index < points.length; index++) {
      const point = points[index] as { t?: unknown } | null;
      if (typeof point !== "object" || point === null || !Number.isInteger(point.t))
        return fail(["points", index, "t"], "expected a point with a whole-second t");
      if (index === 0 || index === points.length - 1 || index % SAMPLE_EVERY === 0) {
        const checked = SeriesPoint.safeParse(point);
        if (!checked.success) {
          const issue = checked.error.issues[0]!;
          return fail(
            ["points", index, ...issue.path.map((part) => (typeof part === "number" ? part : String(part)))],
            issue.message,
          );
        }
      }
    }
    return { success: true, data: { runId, points: points as SeriesPoint[] } };
  },
};
