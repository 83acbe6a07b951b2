"use client";

import Link from "next/link";
import { useApiData } from "../hooks/use-api-data";
import { api } from "../lib/api";
import { can } from "../lib/settings-permissions";
import { PlanList } from "./plan-list";
import { useMe } from "./session-gate";

/** Plans page: the saved plans and a way to make another. */
export function PlansView() {
  const { data, error } = useApiData((signal) => api.listPlans(signal));
  const writes = can(useMe().role, "plan.write"); // Viewers read plans only; the API refuses the rest anyway.
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Plans</h1>
          <p>A plan says which server to test, what each client does and how many clients for how long.</p>
        </div>
        {writes && (
          <Link className="button primary" href="/plans/new">
            New plan
          </Link>
        )}
      </div>
      {error && (
        <p className="alert" role="alert">
          {error}
        </p>
      )}
      {data ? <PlanList plans={data} /> : !error && <p className="loading">Loading plans…</p>}
    </>
  );
}
