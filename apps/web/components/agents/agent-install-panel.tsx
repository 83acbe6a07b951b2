"use client";

import { useState } from "react";
import { usePendingAction } from "../../hooks/use-pending-action";
import type { EnrolmentTokenCreated } from "@throng/protocol/api";
import { api } from "../../lib/shared/api";
import { formatDateTime, formatUntil } from "../../lib/shared/format";
import { installMethods, parseAllowTargets } from "../../lib/agents/install-commands";
import { CodeBlock } from "../ui/code-block";
import { Tabs } from "../ui/tabs";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";

const VALIDITY = [
  { minutes: 60, label: "1 hour" },
  { minutes: 24 * 60, label: "24 hours" },
  { minutes: 7 * 24 * 60, label: "7 days" },
] as const;

/** What the agent will be let run: each choice adds its flag to every command below (the agent tells the server). */
function PermissionChoices({
  value,
  onChange,
}: {
  value: { allowScripts: boolean; targets: string };
  onChange: (next: { allowScripts: boolean; targets: string }) => void;
}) {
  return (
    <div className="toolbar" data-testid="install-permissions">
      <div className="checkbox">
        <input
          id="install-allow-scripts"
          type="checkbox"
          checked={value.allowScripts}
          onChange={(event) => onChange({ ...value, allowScripts: event.target.checked })}
          aria-describedby="install-allow-scripts-hint"
        />
        <label htmlFor="install-allow-scripts">Run scripts</label>
        <span className="hint" id="install-allow-scripts-hint">
          --allow-scripts: script plans run your JavaScript on this machine
        </span>
      </div>
      <div className="field inline">
        <label htmlFor="install-allow-targets">Only load</label>
        <input
          id="install-allow-targets"
          value={value.targets}
          placeholder="any target (or host:port, *.domain, …)"
          onChange={(event) => onChange({ ...value, targets: event.target.value })}
          aria-describedby="install-allow-targets-hint"
        />
        <span className="hint" id="install-allow-targets-hint">
          --allow-target: the agent refuses any other target, whatever a plan says
        </span>
      </div>
    </div>
  );
}

function InstallMethods({ created }: { created: EnrolmentTokenCreated }) {
  const [choices, setChoices] = useState({ allowScripts: false, targets: "" });
  const methods = installMethods(created, {
    allowScripts: choices.allowScripts,
    allowTargets: parseAllowTargets(choices.targets),
  });
  const [selected, setSelected] = useState<string>("script");
  if (!methods) {
    return (
      <p className="alert" role="alert">
        The API answered without its own address, so no install command can be built. Check API_PUBLIC_URL on the
        server.
      </p>
    );
  }
  const method = methods.find((candidate) => candidate.id === selected) ?? methods[0]!;
  return (
    <>
      <PermissionChoices value={choices} onChange={setChoices} />
      <Tabs
        label="Ways to install the agent"
        idPrefix="install"
        tabs={methods}
        selected={method.id}
        onSelect={setSelected}
      >
        <p className="muted">{method.note}</p>
        <CodeBlock text={method.text} label={`${method.label} command`} testId={`install-command-${method.id}`} wrap />
      </Tabs>
    </>
  );
}

/** Creates an enrolment token and shows every way to start an agent with it, each ready to copy. */
export function AgentInstallPanel() {
  const [created, setCreated] = useState<(EnrolmentTokenCreated & { singleUse: boolean }) | null>(null);
  const [singleUse, setSingleUse] = useState(false);
  const [validFor, setValidFor] = useState<number>(VALIDITY[0].minutes);
  const { pending, failure, run } = usePendingAction();

  function create() {
    return run(async () =>
      setCreated({ ...(await api.createEnrolmentToken({ expiresInMinutes: validFor, singleUse })), singleUse }),
    );
  }

  return (
    <section className="panel" aria-labelledby="enrol-title">
      <h2 id="enrol-title">Install an agent</h2>
      <p className="muted">
        An agent runs on a machine you own and generates the load. Create an enrolment token, then run one of the
        commands on that machine; the agent appears in the list below within seconds.
      </p>
      <div className="toolbar">
        <div className="field inline">
          <label htmlFor="token-validity">Token valid for</label>
          <select id="token-validity" value={validFor} onChange={(event) => setValidFor(Number(event.target.value))}>
            {VALIDITY.map((option) => (
              <option key={option.minutes} value={option.minutes}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <div className="checkbox">
          <input
            id="token-single-use"
            type="checkbox"
            checked={singleUse}
            onChange={(event) => setSingleUse(event.target.checked)}
            aria-describedby="token-single-use-hint"
          />
          <label htmlFor="token-single-use">Single use</label>
          <span className="hint" id="token-single-use-hint">
            enrols one agent, then stops working
          </span>
        </div>
        <BusyButton onClick={create} busy={pending} busyText="Creating…" testId="create-enrolment-token">
          {created ? "Create another token" : "Create enrolment token"}
        </BusyButton>
      </div>
      <ErrorAlert error={failure} testId="enrolment-error" />
      {created && (
        <div data-testid="enrolment-token">
          <InstallMethods key={created.token} created={created} />
          <p className="muted" data-testid="enrolment-expiry">
            {created.singleUse ? "This token enrols one agent" : "This token enrols any number of agents"} until it
            expires {formatUntil(created.expiresAt)} ({formatDateTime(created.expiresAt)}). It is not shown again: copy
            what you need now.
          </p>
        </div>
      )}
    </section>
  );
}
