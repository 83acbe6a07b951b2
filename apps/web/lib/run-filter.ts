import { RunStatus, type RunView } from "@throng/protocol/run";

/**
 * What the runs list shows, as kept in the page's query string. Applied in the browser over GET /api/runs
 * for now; the same fields map onto server-side query parameters once the API pages runs itself.
 */
export interface RunFilter {
  planId: string | null;
  status: RunStatus | null;
  /** Calendar days in the browser's time zone, `YYYY-MM-DD`, inclusive. */
  from: string | null;
  to: string | null;
  page: number;
}

export const RUNS_PER_PAGE = 20;
export const EMPTY_RUN_FILTER: RunFilter = { planId: null, status: null, from: null, to: null, page: 1 };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

function day(value: string | null): string | null {
  return value && DAY.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00`)) ? value : null;
}

/** Reads the filter from `?plan=&status=&from=&to=&page=`, ignoring anything malformed. */
export function parseRunFilter(query: { get(name: string): string | null }): RunFilter {
  const status = RunStatus.safeParse(query.get("status"));
  const page = Number(query.get("page"));
  return {
    planId: query.get("plan") || null,
    status: status.success ? status.data : null,
    from: day(query.get("from")),
    to: day(query.get("to")),
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

/** The query string for a filter; defaults are left out so a plain /runs stays plain. */
export function runFilterQuery(filter: RunFilter): string {
  const query = new URLSearchParams();
  if (filter.planId) query.set("plan", filter.planId);
  if (filter.status) query.set("status", filter.status);
  if (filter.from) query.set("from", filter.from);
  if (filter.to) query.set("to", filter.to);
  if (filter.page > 1) query.set("page", String(filter.page));
  const text = query.toString();
  return text ? `?${text}` : "";
}

export function isFiltered(filter: RunFilter): boolean {
  return Boolean(filter.planId || filter.status || filter.from || filter.to);
}

export interface RunPage {
  runs: RunView[];
  /** Runs matching the filter, over every page. */
  matching: number;
  page: number;
  pages: number;
  /** 1-based positions of the first and last run shown; 0 when none. */
  first: number;
  last: number;
}

function createdWithin(run: RunView, from: string | null, to: string | null): boolean {
  const created = Date.parse(run.createdAt);
  if (from && created < new Date(`${from}T00:00:00`).getTime()) return false;
  if (to && created >= new Date(`${to}T00:00:00`).getTime() + 86_400_000) return false;
  return true;
}

/** Filters newest-first and cuts out one page; a page past the end shows the last one. */
export function applyRunFilter(runs: readonly RunView[], filter: RunFilter, perPage = RUNS_PER_PAGE): RunPage {
  const matching = runs
    .filter((run) => (!filter.planId || run.planId === filter.planId) && (!filter.status || run.status === filter.status))
    .filter((run) => createdWithin(run, filter.from, filter.to))
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt));
  const pages = Math.max(1, Math.ceil(matching.length / perPage));
  const page = Math.min(Math.max(1, filter.page), pages);
  const start = (page - 1) * perPage;
  const shown = matching.slice(start, start + perPage);
  return {
    runs: shown,
    matching: matching.length,
    page,
    pages,
    first: shown.length ? start + 1 : 0,
    last: start + shown.length,
  };
}

/** Plans that have runs, for the plan filter: the name each run recorded, newest name per plan. */
export function plansOfRuns(runs: readonly RunView[]): { id: string; name: string }[] {
  const byId = new Map<string, { name: string; at: number }>();
  for (const run of runs) {
    const at = Date.parse(run.createdAt);
    const known = byId.get(run.planId);
    if (!known || at > known.at) byId.set(run.planId, { name: run.planName, at });
  }
  return [...byId].map(([id, { name }]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
}
