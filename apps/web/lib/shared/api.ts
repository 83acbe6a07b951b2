import {
  AgentView,
  type CreateEnrolmentToken,
  EnrolmentTokenCreated,
  Me,
  PlanVersionView,
  PlanView,
  type PlanListQuery,
  type SavePlan,
  type UpdatePlan,
} from "@throng/protocol/api";
import { OrgSchedulesView, PlanScheduleView, type SetPlanSchedule } from "@throng/protocol/plan-schedule";
import { RunView } from "@throng/protocol/run";
import { RunServerSeries } from "@throng/protocol/server-watch";
import { RunErrorSamples } from "@throng/protocol/error-samples";
import { RunRooms } from "@throng/protocol/rooms";
import { LatencyDistribution } from "@throng/protocol/latency-distribution";
import { TrialView, type TryPlan } from "@throng/protocol/session-trial";
import { SeriesAnswer } from "./series-answer";
import { apiRequest, listOf } from "./api-client";
import { distributionQuery, type ViewRange } from "../charts/view-range";

// Wrapper schemas for list answers; the item schemas come from the protocol.
const AgentList = listOf("agents", AgentView);
type PlanShelf = PlanListQuery["shelf"];
const PlanList = listOf("plans", PlanView);
const PlanVersionList = listOf("versions", PlanVersionView);
const RunList = listOf("runs", RunView);

const path = (...parts: string[]) => `/api/${parts.map(encodeURIComponent).join("/")}`;

export const api = {
  me: (signal?: AbortSignal) => apiRequest("GET", "/api/me", Me, undefined, signal),

  createEnrolmentToken: (body: Partial<CreateEnrolmentToken> = {}) =>
    apiRequest("POST", "/api/enrolment-tokens", EnrolmentTokenCreated, body),
  listAgents: (signal?: AbortSignal) => apiRequest("GET", "/api/agents", AgentList, undefined, signal),
  setAgentLabels: (agentId: string, labels: Record<string, string>) =>
    apiRequest("PUT", path("agents", agentId, "labels"), AgentView, { labels }),
  revokeAgent: (agentId: string) => apiRequest<void>("POST", path("agents", agentId, "revoke"), null),

  /** The active plans, or with `shelf` the archived ones or both. */
  listPlans: (signal?: AbortSignal, shelf: PlanShelf = "active") =>
    apiRequest("GET", shelf === "active" ? "/api/plans" : `/api/plans?shelf=${shelf}`, PlanList, undefined, signal),
  archivePlan: (planId: string) => apiRequest("POST", path("plans", planId, "archive"), PlanView),
  restorePlan: (planId: string) => apiRequest("POST", path("plans", planId, "restore"), PlanView),
  /** Only a plan that never ran; the API answers 409 (archive it instead) for one with runs. */
  deletePlan: (planId: string) => apiRequest<void>("DELETE", path("plans", planId), null),
  getPlan: (planId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("plans", planId), PlanView, undefined, signal),
  savePlan: (body: SavePlan) => apiRequest("POST", "/api/plans", PlanView, body),
  updatePlan: (planId: string, body: UpdatePlan) => apiRequest("PUT", path("plans", planId), PlanView, body),
  listPlanVersions: (planId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("plans", planId, "versions"), PlanVersionList, undefined, signal),
  /** One client of an unsaved plan runs its session from an online agent (waits up to ~20 s). */
  tryPlan: (body: TryPlan) => apiRequest("POST", "/api/plans/try", TrialView, body),
  startRun: (planId: string) => apiRequest("POST", path("plans", planId, "runs"), RunView),
  getPlanSchedule: (planId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("plans", planId, "schedule"), PlanScheduleView, undefined, signal),
  setPlanSchedule: (planId: string, body: SetPlanSchedule) =>
    apiRequest("PUT", path("plans", planId, "schedule"), PlanScheduleView, body),
  removePlanSchedule: (planId: string) => apiRequest<void>("DELETE", path("plans", planId, "schedule"), null),
  pausePlanSchedule: (planId: string) =>
    apiRequest("POST", path("plans", planId, "schedule", "pause"), PlanScheduleView),
  resumePlanSchedule: (planId: string) =>
    apiRequest("POST", path("plans", planId, "schedule", "resume"), PlanScheduleView),
  /** Every schedule of the organisation (the Schedules page). */
  listSchedules: async (signal?: AbortSignal) =>
    (await apiRequest("GET", "/api/schedules", OrgSchedulesView, undefined, signal)).schedules,
  /** One of the plan's finished runs becomes the baseline later runs are compared with (409 for another plan's run or one not finished). */
  pinBaseline: (planId: string, runId: string) =>
    apiRequest("PUT", path("plans", planId, "baseline"), PlanView, { runId }),
  unpinBaseline: (planId: string) => apiRequest("DELETE", path("plans", planId, "baseline"), PlanView),

  listRuns: (signal?: AbortSignal) => apiRequest("GET", "/api/runs", RunList, undefined, signal),
  getRun: (runId: string, signal?: AbortSignal) => apiRequest("GET", path("runs", runId), RunView, undefined, signal),
  getSeries: (runId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("runs", runId, "series"), SeriesAnswer, undefined, signal),
  getServerSeries: (runId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("runs", runId, "server"), RunServerSeries, undefined, signal),
  getErrorSamples: (runId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("runs", runId, "errors"), RunErrorSamples, undefined, signal),
  getRooms: (runId: string, signal?: AbortSignal) =>
    apiRequest("GET", path("runs", runId, "rooms"), RunRooms, undefined, signal),
  /** A latency metric's distribution and heatmap over the run, or over the seconds `from`..`to` of it (to exclusive). */
  getDistribution: (runId: string, metric: string, range: ViewRange | null, signal?: AbortSignal) => {
    const query = distributionQuery(metric, range);
    return apiRequest("GET", `${path("runs", runId, "distribution")}?${query}`, LatencyDistribution, undefined, signal);
  },
  abortRun: (runId: string) => apiRequest("POST", path("runs", runId, "abort"), RunView),
  liveUrl: (runId: string) => path("runs", runId, "live"),
};
