"use client";

import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { errorMessage } from "../../lib/shared/api-client";
import { queryKeys } from "../../lib/shared/query-keys";
import { settingsApi } from "../../lib/settings/settings-api";
import "../../app/(app)/settings/settings.css";
import { BusyButton } from "../ui/busy-button";

/**
 * The active organisation in the nav; a select and Switch when the user belongs to several. Switching
 * reloads the page because every loaded list (agents, plans, runs) belonged to the old one: a full reload also
 * starts an empty query cache, rather than invalidating every key by hand.
 */
export function OrgSwitcher({ organisation }: { organisation: string }) {
  const { data } = useApiQuery(queryKeys.orgs, (signal) => settingsApi.listOrgs(signal));
  const switching = useMutation({ mutationFn: settingsApi.switchOrg, onSuccess: () => window.location.reload() });
  // Still "Switching…" after success, while the page reloads.
  const pending = switching.isPending || switching.isSuccess;
  const failure = switching.isError ? errorMessage(switching.error) : null;
  const active = data?.find((org) => org.active);
  const [chosen, setChosen] = useState<string | null>(null);

  // Until the list arrives, or with one organisation, there is nothing to switch to.
  if (!data || data.length < 2 || !active) {
    return (
      <span className="org" data-testid="org-name" title={`Organisation: ${organisation}`}>
        {organisation}
      </span>
    );
  }
  return (
    <div className="org-switcher">
      <label htmlFor="org-switcher">Organisation</label>
      {/* A separate Switch button: arrowing through a closed select fires change on every key press. */}
      <select
        id="org-switcher"
        value={chosen ?? active.orgId}
        onChange={(event) => setChosen(event.target.value)}
        disabled={pending}
        data-testid="org-name"
      >
        {data.map((org) => (
          <option key={org.orgId} value={org.orgId}>
            {org.name} ({org.role})
          </option>
        ))}
      </select>
      {chosen && chosen !== active.orgId && (
        <BusyButton
          className="button small"
          onClick={() => switching.mutate(chosen)}
          busy={pending}
          busyText="Switching…"
          testId="switch-org"
        >
          Switch
        </BusyButton>
      )}
      {failure && (
        <span className="switch-error" role="alert">
          {failure}
        </span>
      )}
    </div>
  );
}
