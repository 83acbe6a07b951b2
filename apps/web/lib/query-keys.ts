// TanStack Query cache keys: one place, so a mutation invalidates exactly what the pages read.
import type { RunsQuery } from "@throng/protocol/run-list";
import type { PlanListQuery } from "@throng/protocol/api";

export const queryKeys = {
  /** GET /api/agents: the Agents page and Home share it. */
  agents: ["agents"] as const,
  /** GET /api/runs (Home's recent runs). */
  recentRuns: ["runs", "recent"] as const,
  /** One page of GET /api/runs: the filter and paging are the API's query parameters and the key. */
  runsPage: (query: Partial<RunsQuery>) => ["runs", "page", query] as const,
  plans: (shelf: PlanListQuery["shelf"]) => ["plans", shelf] as const,
  /** GET /api/targets: the last capacity estimate per target. */
  targets: ["targets"] as const,
};
