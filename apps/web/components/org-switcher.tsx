"use client";

import { useState } from "react";
import { useApiData } from "../hooks/use-api-data";
import { errorMessage } from "../lib/api-client";
import { settingsApi } from "../lib/settings-api";
import "../app/(app)/settings/settings.css";

/**
 * The active organisation in the nav; a select and Switch when the user belongs to several. Switching
 * reloads the page because every loaded list (agents, plans, runs) belonged to the old one.
 */
export function OrgSwitcher({ organisation }: { organisation: string }) {
  const { data } = useApiData((signal) => settingsApi.listOrgs(signal));
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);
  const active = data?.find((org) => org.active);
  const [chosen, setChosen] = useState<string | null>(null);

  async function switchTo(orgId: string) {
    setPending(true);
    setFailure(null);
    try {
      await settingsApi.switchOrg(orgId);
      window.location.reload();
    } catch (error) {
      setFailure(errorMessage(error));
      setPending(false);
    }
  }

  // Until the list arrives, or with one organisation, there is nothing to switch to.
  if (!data || data.length < 2 || !active) {
    return (
      <span className="org" data-testid="org-name" title="Organisation">
        {organisation}
      </span>
    );
  }
  return (
    <div className="org-switcher">
      <label htmlFor="org-switcher">Organisation</label>
      {/* A separate Switch button: arrowing through a closed select fires change on every key press. */}
      <select id="org-switcher" value={chosen ?? active.orgId} onChange={(event) => setChosen(event.target.value)} disabled={pending} data-testid="org-name">
        {data.map((org) => (
          <option key={org.orgId} value={org.orgId}>
            {org.name} ({org.role})
          </option>
        ))}
      </select>
      {chosen && chosen !== active.orgId && (
        <button className="button small" type="button" onClick={() => void switchTo(chosen)} disabled={pending} data-testid="switch-org">
          {pending ? "Switching…" : "Switch"}
        </button>
      )}
      {failure && (
        <span className="switch-error" role="alert">
          {failure}
        </span>
      )}
    </div>
  );
}
