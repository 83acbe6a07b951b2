import { VerdictOutcome } from "@throng/protocol/report";
import { RunStatus } from "@throng/protocol/run";
import type { RunPage, RunsQuery } from "@throng/protocol/run-list";
import { RunTag } from "@throng/protocol/run-notes";

/** What the runs list shows, as kept in the page's query string; GET /api/runs applies it (runsQueryOf). */
export interface RunFilter {
  planId: string | null;
  status: RunStatus | null;
  /** The verdict: passed, breached, incomplete, aborted, failed. */
  outcome: VerdictOutcome | null;
  /** Calendar days in the browser's time zone, `YYYY-MM-DD`, inclusive. */
  from: string | null;
  to: string | null;
  /** Only runs carrying this tag (a lowercase slug). */
  tag: string | null;
  page: number;
}

export const RUNS_PER_PAGE = 20;
export const EMPTY_RUN_FILTER: RunFilter = {
  planId: null,
  status: null,
  outcome: null,
  from: null,
  to: null,
  tag: null,
  page: 1,
};

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function day(value: string | null): string | null {
  return value && DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00`)) ? value : null;
}

/** Reads the filter from `?plan=&status=&outcome=&from=&to=&tag=&page=`, ignoring anything malformed. */
export function parseRunFilter(query: { get(name: string): string | null }): RunFilter {
  const status = RunStatus.safeParse(query.get("status"));
  const outcome = VerdictOutcome.safeParse(query.get("outcome"));
  const tag = RunTag.safeParse(query.get("tag"));
  const page = Number(query.get("page"));
  return {
    planId: ID.test(query.get("plan") ?? "") ? query.get("plan") : null,
    status: status.success ? status.data : null,
    outcome: outcome.success ? outcome.data : null,
    from: day(query.get("from")),
    to: day(query.get("to")),
    tag: tag.success ? tag.data : null,
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

/** The query string for a filter; defaults are left out so a plain /runs stays plain. */
export function runFilterQuery(filter: RunFilter): string {
  const query = new URLSearchParams();
  if (filter.planId) query.set("plan", filter.planId);
  if (filter.status) query.set("status", filter.status);
  if (filter.outcome) query.set("outcome", filter.outcome);
  if (filter.from) query.set("from", filter.from);
  if (filter.to) query.set("to", filter.to);
  if (filter.tag) query.set("tag", filter.tag);
  if (filter.page > 1) query.set("page", String(filter.page));
  const text = query.toString();
  return text ? `?${text}` : "";
}

export function isFiltered(filter: RunFilter): boolean {
  return Boolean(filter.planId || filter.status || filter.outcome || filter.from || filter.to || filter.tag);
}

/** The API's page of runs with the 1-based positions of its first and last run (0 when none), for the pager. */
export interface ShownRunPage extends RunPage {
  first: number;
  last: number;
}

/** Local midnight of a `YYYY-MM-DD` day as an instant, `days` later. */
function dayStart(day: string, days = 0): string {
  const date = new Date(`${day}T00:00:00`);
  date.setDate(date.getDate() + days);
  return date.toISOString();
}

/**
 * The filter as GET /api/runs's query: the database filters and pages. Days are the browser's own, so they go
 * out as instants (from's midnight, the midnight after to).
 */
export function runsQueryOf(filter: RunFilter, perPage = RUNS_PER_PAGE): Partial<RunsQuery> {
  return {
    ...(filter.status && { status: filter.status }),
    ...(filter.outcome && { outcome: filter.outcome }),
    ...(filter.planId && { plan: filter.planId }),
    ...(filter.tag && { tag: filter.tag }),
    ...(filter.from && { createdFrom: dayStart(filter.from) }),
    ...(filter.to && { createdBefore: dayStart(filter.to, 1) }),
    page: filter.page,
    limit: perPage,
  };
}

/** The pager's positions of an API page. */
export function shownPage(page: RunPage): ShownRunPage {
  const start = (page.page - 1) * page.limit;
  return { ...page, first: page.runs.length ? start + 1 : 0, last: start + page.runs.length };
}
