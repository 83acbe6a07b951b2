"use client";

import { useState } from "react";
import type { EnrolmentTokenCreated } from "@throng/protocol/api";
import { api } from "../lib/api";
import { errorMessage } from "../lib/api-client";
import { formatDateTime, formatUntil } from "../lib/format";
import { installMethods } from "../lib/install-commands";
import { CodeBlock } from "./code-block";
import { Tabs } from "./tabs";

const VALIDITY = [
  { minutes: 60, label: "1 hour" },
  { minutes: 24 * 60, label: "24 hours" },
  { minutes: 7 * 24 * 60, label: "7 days" },
] as const;

function InstallMethods({ created }: { created: EnrolmentTokenCreated }) {
  const methods = installMethods(created);
  const [selected, setSelected] = useState<string>("script");
  if (!methods) {
    return (
      <p className="alert" role="alert">
        The API answered without its own address, so no install command can be built. Check API_PUBLIC_URL on the server.
      </p>
    );
  }
  const method = methods.find((candidate) => candidate.id === selected) ?? methods[0]!;
  return (
    <Tabs label="Ways to install the agent" idPrefix="install" tabs={methods} selected={method.id} onSelect={setSelected}>
      <p className="muted">{method.note}</p>
      <CodeBlock text={method.text} label={`${method.label} command`} testId={`install-command-${method.id}`} wrap />
    </Tabs>
  );
}

/** Creates an enrolment token and shows every way to start an agent with it, each ready to copy. */
export function AgentInstallPanel() {
  const [created, setCreated] = useState<(EnrolmentTokenCreated & { singleUse: boolean }) | null>(null);
  const [singleUse, setSingleUse] = useState(false);
  const [validFor, setValidFor] = useState<number>(VALIDITY[0].minutes);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function create() {
    setPending(true);
    setFailure(null);
    try {
      setCreated({ ...(await api.createEnrolmentToken({ expiresInMinutes: validFor, singleUse })), singleUse });
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      setPending(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="enrol-title">
      <h2 id="enrol-title">Install an agent</h2>
      <p className="muted">
        An agent runs on a machine you own and generates the load. Create an enrolment token, then run one of the commands on
        that machine; the agent appears in the list below within seconds.
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
          <input id="token-single-use" type="checkbox" checked={singleUse} onChange={(event) => setSingleUse(event.target.checked)} aria-describedby="token-single-use-hint" />
          <label htmlFor="token-single-use">Single use</label>
          <span className="hint" id="token-single-use-hint">
            enrols one agent, then stops working
          </span>
        </div>
        <button className="button primary" type="button" onClick={create} disabled={pending} data-testid="create-enrolment-token">
          {pending ? "Creating…" : created ? "Create another token" : "Create enrolment token"}
        </button>
      </div>
      {failure && (
        <p className="alert" role="alert" data-testid="enrolment-error">
          {failure}
        </p>
      )}
      {created && (
        <div data-testid="enrolment-token">
          <InstallMethods key={created.token} created={created} />
          <p className="muted" data-testid="enrolment-expiry">
            {created.singleUse ? "This token enrols one agent" : "This token enrols any number of agents"} until it expires{" "}
            {formatUntil(created.expiresAt)} ({formatDateTime(created.expiresAt)}). It is not shown again: copy what you need now.
          </p>
        </div>
      )}
    </section>
  );
}
