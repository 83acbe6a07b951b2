"use client";

import { useState } from "react";
import type { ShareLinkCreated } from "@throng/protocol/report";
import { useApiMutation } from "../../hooks/use-api-mutation";
import { useApiQuery } from "../../hooks/use-api-query";
import { errorMessage } from "../../lib/shared/api-client";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { CopyButton } from "../ui/copy-button";
import { DataTable } from "../ui/data-table";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";
import { SelectField, type SelectOption } from "../ui/select-field";

/** How long a new share link lives, by its days ("" for no expiry). */
const EXPIRIES: readonly SelectOption<string>[] = [
  { id: "", label: "Never (until revoked)" },
  { id: "1", label: "1 day" },
  { id: "7", label: "7 days" },
  { id: "30", label: "30 days" },
  { id: "90", label: "90 days" },
];

function linkState(
  link: { revokedAt: string | null; expiresAt: string | null },
  now: number,
): { text: string; tone: string } {
  if (link.revokedAt) return { text: `revoked ${formatDateTime(link.revokedAt)}`, tone: "idle" };
  if (link.expiresAt && new Date(link.expiresAt).getTime() <= now) return { text: "expired", tone: "idle" };
  return { text: link.expiresAt ? `active until ${formatDateTime(link.expiresAt)}` : "active, no expiry", tone: "ok" };
}

/** Public read-only links to this report: create one (its address is shown once), list them, revoke. */
export function ShareLinks({ runId }: { runId: string }) {
  const links = useApiQuery(queryKeys.shareLinks(runId), (signal) => reportApi.shareLinks(runId, signal));
  const [days, setDays] = useState("");
  const [created, setCreated] = useState<ShareLinkCreated | null>(null);
  const creating = useApiMutation(
    (expiresInDays: number | undefined) => reportApi.createShareLink(runId, expiresInDays),
    [queryKeys.shareLinks(runId)],
  );
  const revoking = useApiMutation(reportApi.revokeShareLink, [queryKeys.shareLinks(runId)]);
  // One error line for both actions: starting either clears the other's old failure.
  const failed = creating.error ?? revoking.error;
  const failure = failed ? errorMessage(failed) : null;

  function create() {
    revoking.reset();
    creating.mutate(days ? Number(days) : undefined, { onSuccess: setCreated });
  }

  function revoke(linkId: string) {
    creating.reset();
    revoking.mutate(linkId, { onSuccess: () => setCreated((shown) => (shown?.id === linkId ? null : shown)) });
  }

  const now = Date.now();
  return (
    <section className="panel no-print" aria-labelledby="share-title" data-testid="share-links">
      <h2 id="share-title">Share this report</h2>
      <p className="muted">
        Anyone with a share link sees this report, read-only, without signing in, and nothing else of your organisation.
      </p>
      <div className="inline-form">
        <SelectField id="share-expiry" label="Link expires after" value={days} options={EXPIRIES} onChange={setDays} />
        <BusyButton onClick={create} busy={creating.isPending} busyText="Creating…" testId="create-share-link">
          Create share link
        </BusyButton>
      </div>
      <ErrorAlert error={failure} testId="share-error" />
      {created && (
        <div className="secret-box" role="status" data-testid="share-created">
          <label htmlFor="share-url">New link — copy it now, it is shown only once</label>
          <div className="input-row">
            <input
              id="share-url"
              type="text"
              className="code"
              readOnly
              value={created.url}
              data-testid="share-url"
              onFocus={(event) => event.target.select()}
            />
            <CopyButton text={created.url} label="share link" />
          </div>
        </div>
      )}
      <ErrorAlert error={links.error} />
      {links.data && links.data.length === 0 && (
        <p className="muted" data-testid="share-empty">
          No share links yet. Create one above to show this report to someone outside the organisation.
        </p>
      )}
      {links.data && links.data.length > 0 && (
        <DataTable caption="Share links of this report" columns={["Created", "State", ""]}>
          {links.data.map((link) => {
            const state = linkState(link, now);
            return (
              <tr key={link.id} data-testid="share-link-row" data-link-id={link.id}>
                <td>{formatDateTime(link.createdAt)}</td>
                <td>
                  <span className={`badge ${state.tone}`}>{state.text}</span>
                </td>
                <td className="num">
                  {!link.revokedAt && (
                    <button
                      className="button small danger"
                      type="button"
                      onClick={() => revoke(link.id)}
                      data-testid="revoke-share-link"
                    >
                      Revoke<span className="sr-only"> link created {formatDateTime(link.createdAt)}</span>
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
    </section>
  );
}
