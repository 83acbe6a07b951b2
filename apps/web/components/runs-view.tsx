"use client";

import Link from "next/link";
import { usePathname, useSearchParams } from "next/navigation";
import { useEffect, useMemo, useRef, useState } from "react";
import { useApiData } from "../hooks/use-api-data";
import { api } from "../lib/api";
import { applyRunFilter, isFiltered, parseRunFilter, plansOfRuns, runFilterQuery, type RunFilter } from "../lib/run-filter";
import { Pager, RunFilters } from "./run-filters";
import { RunList } from "./run-list";

const POLL_MS = 2000;

/** Runs page: every run, filtered and paged in the browser (the API lists them all), the filter kept in the URL. */
export function RunsView() {
  const { data, error } = useApiData((signal) => api.listRuns(signal), POLL_MS);
  const pathname = usePathname();
  const query = useSearchParams();
  // Local state answers at once; the URL follows through history.replaceState (no server round trip, no race
  // between quick changes), and a navigation to other query parameters (a link to /runs?plan=…) flows back in.
  const queryText = query.toString();
  const [filter, setFilter] = useState<RunFilter>(() => parseRunFilter(query));
  const written = useRef(queryText);
  useEffect(() => {
    if (queryText === written.current) return;
    written.current = queryText;
    setFilter(parseRunFilter(new URLSearchParams(queryText)));
  }, [queryText]);
  const page = useMemo(() => (data ? applyRunFilter(data, filter) : null), [data, filter]);
  const plans = useMemo(() => (data ? plansOfRuns(data) : []), [data]);
  const show = (next: RunFilter) => {
    const search = runFilterQuery(next);
    setFilter(next);
    written.current = search.replace(/^\?/, "");
    window.history.replaceState(null, "", `${pathname}${search}`);
  };

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Runs</h1>
          <p>Each run is one execution of a plan; open one to watch it live or read its report.</p>
        </div>
      </div>
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {!data && !error && <p className="loading">Loading runs…</p>}
      {data && data.length === 0 && (
        <div className="empty" data-testid="runs-empty">
          <strong>No runs yet.</strong>
          <p>Start one from a plan: pick a plan and press Start run. You need at least one agent online.</p>
          <Link className="button primary" href="/plans">
            Go to plans
          </Link>
        </div>
      )}
      {data && data.length > 0 && page && (
        <>
          <RunFilters filter={filter} plans={plans} onChange={show} />
          {page.matching === 0 ? (
            <div className="empty" data-testid="runs-none-match">
              <strong>No run matches these filters.</strong>
              <button className="button" type="button" onClick={() => show({ ...filter, planId: null, status: null, from: null, to: null, page: 1 })}>
                Clear filters
              </button>
            </div>
          ) : (
            <>
              <RunList runs={page.runs} now={Date.now()} />
              <Pager {...page} onPage={(next) => show({ ...filter, page: next })} />
            </>
          )}
          {isFiltered(filter) && <p className="muted small">Filters apply to the {data.length} runs of your organisation.</p>}
        </>
      )}
    </>
  );
}
