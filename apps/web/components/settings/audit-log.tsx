"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import { describeAction, describeDetails, describeTarget, targetNames } from "../../lib/settings/settings-audit";
import { DataTable } from "../ui/data-table";
import { forRole } from "./settings-nav";
import { ErrorAlert } from "../ui/error-alert";
import { keyedByContent } from "../../lib/shared/content-keys";

/** Who did what to members, invitations, tokens and settings; admins and owners only. */
export const AuditLog = forRole("audit.read", "The audit log", AuditTable);

function AuditTable() {
  const { data, error } = useApiQuery(queryKeys.audit, (signal) => settingsApi.listAudit(signal));
  const queryClient = useQueryClient();
  const names = useMemo(() => targetNames(data ?? []), [data]);
  return (
    <section className="settings-section" aria-labelledby="audit-title">
      <div className="section-head">
        <div>
          <h2 id="audit-title">Audit log</h2>
          <p>Sensitive actions in this organisation, newest first.</p>
        </div>
        <button
          className="button small"
          type="button"
          onClick={() => void queryClient.invalidateQueries({ queryKey: queryKeys.audit })}
        >
          Refresh
        </button>
      </div>
      <ErrorAlert error={error} />
      {!data ? (
        !error && <p className="loading">Loading the audit log…</p>
      ) : data.length === 0 ? (
        <div className="empty" data-testid="audit-empty">
          <strong>Nothing recorded yet.</strong>
          Role changes, invitations, API tokens and settings changes appear here.
        </div>
      ) : (
        <DataTable caption="Audit log" columns={["Time", "Actor", "Action", "Target", "Details"]} testId="audit-list">
          {keyedByContent(data, (e) => `${e.at}-${e.actor}-${e.action}-${e.target ?? ""}`).map(
            ({ item: entry, key }) => (
              <tr key={key} data-testid="audit-row" data-action={entry.action}>
                <td className="nowrap">{formatDateTime(entry.at)}</td>
                <td>{entry.actor}</td>
                <td title={entry.action}>{describeAction(entry.action)}</td>
                <td title={entry.target ?? undefined}>{describeTarget(entry, names)}</td>
                <td>{describeDetails(entry) || "—"}</td>
              </tr>
            ),
          )}
        </DataTable>
      )}
    </section>
  );
}
