"use client";

import { useState } from "react";
import type { EnrolmentTokenCreated } from "@throng/protocol/api";
import { api } from "../lib/api";
import { errorMessage } from "../lib/api-client";
import { formatDateTime, formatUntil } from "../lib/format";
import { CopyButton } from "./copy-button";

function EnrolmentCommand({ label, command, testId }: { label: string; command: string; testId: string }) {
  return (
    <div>
      <div className="command-label">{label}</div>
      <div className="command">
        <pre>
          <code data-testid={testId}>{command}</code>
        </pre>
        <CopyButton text={command} label={`${label} command`} />
      </div>
    </div>
  );
}

/** Creates a one-time enrolment token and shows the commands that enrol a test rig with it. */
export function EnrolmentTokenPanel() {
  const [created, setCreated] = useState<EnrolmentTokenCreated | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  async function create() {
    setPending(true);
    setFailure(null);
    try {
      setCreated(await api.createEnrolmentToken());
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      setPending(false);
    }
  }

  return (
    <section className="panel" aria-labelledby="enrol-title">
      <div className="page-head">
        <div>
          <h2 id="enrol-title">Enrol a test rig</h2>
          <p>Agents generate the load. Create a token, then run one of its commands on the machine that should send traffic.</p>
        </div>
        <button className="button primary" type="button" onClick={create} disabled={pending} data-testid="create-enrolment-token">
          {pending ? "Creating…" : created ? "Create another token" : "Create enrolment token"}
        </button>
      </div>
      {failure && (
        <p className="alert" role="alert">
          {failure}
        </p>
      )}
      {created && (
        <div data-testid="enrolment-token">
          <EnrolmentCommand label="With Node.js (from a Throng checkout)" command={created.commands.node} testId="enrolment-command-node" />
          <EnrolmentCommand label="With npx" command={created.commands.npx} testId="enrolment-command-npx" />
          <p className="muted" data-testid="enrolment-expiry">
            The token works once and expires {formatUntil(created.expiresAt)} ({formatDateTime(created.expiresAt)}). It is not
            shown again.
          </p>
        </div>
      )}
    </section>
  );
}
