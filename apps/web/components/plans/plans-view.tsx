"use client";

import Link from "next/link";
import { useState } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { can } from "../../lib/shared/settings-permissions";
import { PlanList } from "./plan-list";
import { useMe } from "../shell/session-gate";
import { ErrorAlert } from "../ui/error-alert";
import { SelectField } from "../ui/select-field";

const SHELVES = [
  { id: "active", label: "Active plans" },
  { id: "archived", label: "Archived plans" },
  { id: "all", label: "All plans" },
] as const;
type Shelf = (typeof SHELVES)[number]["id"];

/** Plans page: the saved plans (archived ones on request) and a way to make another. */
export function PlansView() {
  const [shelf, setShelf] = useState<Shelf>("active");
  // The shelf is part of the key, so another shelf is its own read; the last one stays shown while it loads.
  const { data, error } = useApiQuery(queryKeys.plans(shelf), (signal) => api.listPlans(signal, shelf), {
    keepPrevious: true,
  });
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
      <div className="toolbar">
        <SelectField
          id="plan-shelf"
          label="Show"
          value={shelf}
          options={SHELVES}
          onChange={setShelf}
          inline
          testId="plan-shelf"
        />
      </div>
      <ErrorAlert error={error} />
      {data && shelf === "archived" && data.length === 0 ? (
        <p className="empty" data-testid="plans-archived-empty">
          No archived plans. Archive a plan from its page to hide it here; its runs are kept.
        </p>
      ) : data ? (
        <PlanList plans={data} />
      ) : (
        !error && <p className="loading">Loading plans…</p>
      )}
    </>
  );
}
