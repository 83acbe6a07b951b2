"use client";

import Link from "next/link";
import { useEffect, useMemo } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { useQueryState } from "../../hooks/use-query-state";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import {
  EMPTY_RUN_FILTER,
  isFiltered,
  parseRunFilter,
  runFilterQuery,
  runsQueryOf,
  shownPage,
  type RunFilter,
} from "../../lib/runs/run-filter";
import { runsApi } from "../../lib/runs/runs-api";
import { Pager, RunFilters } from "./run-filters";
import { RunList } from "./run-list";
import { ErrorAlert } from "../ui/error-alert";

const POLL_MS = 2000;

/** Runs page: one page of runs at a time, filtered and paged by the API, the filter kept in the URL. */
export function RunsView() {
  // The filter lives in the URL (a link to /runs?plan=… opens it filtered); one history entry, whatever is changed.
  const [filter, setFilter] = useQueryState<RunFilter>(parseRunFilter, "replace");
  const runsQuery = runsQueryOf(filter);
  // The API's query parameters are the cache key; while another page or filter loads, the last one stays shown.
  const { data, error, previous } = useApiQuery(
    queryKeys.runsPage(runsQuery),
    (signal) => runsApi.page(runsQuery, signal),
    {
      pollMs: POLL_MS,
      keepPrevious: true,
    },
  );
  // Whether the organisation has any run at all (the empty state), and how many: not with the filter.
  const anyQuery = { limit: 1 };
  const any = useApiQuery(queryKeys.runsPage(anyQuery), (signal) => runsApi.page(anyQuery, signal), {
    pollMs: POLL_MS * 5,
  });
  const plans = useApiQuery(queryKeys.plans("all"), (signal) => api.listPlans(signal, "all"));
  const page = useMemo(() => (data ? shownPage(data) : null), [data]);
  // A page past the end (runs deleted, a stale link) shows the last one.
  useEffect(() => {
    if (data && !previous && data.runs.length === 0 && data.matching > 0 && filter.page > data.pages)
      show({ ...filter, page: data.pages });
  });
  const show = (next: RunFilter) => setFilter(next, runFilterQuery(next));

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Runs</h1>
          <p>Each run is one execution of a plan; open one to watch it live or read its report.</p>
        </div>
      </div>
      <ErrorAlert error={error} />
      {!any.data && !error && <p className="loading">Loading runs…</p>}
      {any.data && any.data.matching === 0 && (
        <div className="empty" data-testid="runs-empty">
          <strong>No runs yet.</strong>
          <p>Start one from a plan: pick a plan and press Start run. You need at least one agent online.</p>
          <Link className="button primary" href="/plans">
            Go to plans
          </Link>
        </div>
      )}
      {any.data && any.data.matching > 0 && (
        <>
          <RunFilters filter={filter} plans={plans.data ?? []} onChange={show} />
          {!page ? (
            !error && <p className="loading">Loading runs…</p>
          ) : page.matching === 0 ? (
            <div className="empty" data-testid="runs-none-match">
              <strong>No run matches these filters.</strong>
              <button className="button" type="button" onClick={() => show(EMPTY_RUN_FILTER)}>
                Clear filters
              </button>
            </div>
          ) : (
            <>
              <RunList runs={page.runs} now={Date.now()} />
              <Pager {...page} onPage={(next) => show({ ...filter, page: next })} />
            </>
          )}
          {isFiltered(filter) && (
            <p className="muted small">
              Filters apply to {any.data.matching === 1 ? "the 1 run" : `all ${any.data.matching} runs`} of your
              organisation.
            </p>
          )}
        </>
      )}
    </>
  );
}
