"use client";

import { useState } from "react";
import type { PlanSpec } from "@throng/protocol/plan";
import {
  TRIAL_TIME_LIMIT_MS,
  type BytesPreview,
  type ReceivedPreview,
  type TrialStep,
  type TrialView,
} from "@throng/protocol/session-trial";
import { api } from "../../lib/shared/api";
import { errorMessage } from "../../lib/shared/api-client";
import { formatDecimal } from "../../lib/shared/format";
import { DataTable } from "../ui/data-table";
import { keyedByContent } from "../../lib/shared/content-keys";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";

/** The name an unnamed plan is tried under: a trial saves nothing, so the name is not needed yet. */
export const TRIAL_NAME = "Try it";

/** The form's plan, checked as saving checks it, or how many problems the form now lists instead. */
export type TrialCheck = { spec: PlanSpec } | { problems: number };

/**
 * "Try it": one client of the plan as the form holds it (unsaved) connects from an online agent and runs its session
 * steps; the table shows the connect and each step with its result, time, bytes and captures. `checkPlan` validates
 * the form (showing its problems as saving does); a plan with problems is not tried, and says so here too, beside
 * the button that was pressed, not only at the top of the form.
 */
export function SessionTrial({ checkPlan }: { checkPlan: () => TrialCheck }) {
  const [pending, setPending] = useState(false);
  const [trial, setTrial] = useState<TrialView | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [problems, setProblems] = useState(0);

  async function run() {
    const checked = checkPlan();
    setProblems("problems" in checked ? checked.problems : 0);
    if (!("spec" in checked)) {
      setTrial(null);
      setError(null);
      return;
    }
    const { spec } = checked;
    setPending(true);
    setError(null);
    setTrial(null);
    try {
      setTrial(await api.tryPlan({ spec }));
    } catch (caught) {
      setError(errorMessage(caught));
    } finally {
      setPending(false);
    }
  }

  return (
    <div className="session-trial" data-testid="session-trial">
      <h3>Try the session</h3>
      <p className="muted small">
        One client connects to the target from an online agent and runs the steps above, exactly as a run would; nothing
        is saved and no load is generated. At most {TRIAL_TIME_LIMIT_MS / 1000} s.
      </p>
      <BusyButton className="button" onClick={() => void run()} busy={pending} busyText="Trying…" testId="try-session">
        Try it
      </BusyButton>
      <p role="status" className="small muted" aria-live="polite">
        {pending ? "An agent is connecting and running the steps…" : ""}
      </p>
      {problems > 0 && (
        <p className="alert" role="alert" data-testid="trial-problems">
          Not tried: the plan has {problems === 1 ? "a problem" : `${problems} problems`} to fix first, listed at the
          top of the form and at
          {problems === 1 ? " its field" : " their fields"}.
        </p>
      )}
      <ErrorAlert error={error} testId="trial-error" />
      {trial && <TrialTable trial={trial} />}
    </div>
  );
}

function TrialTable({ trial }: { trial: TrialView }) {
  // http steps run before the socket opens, so they come before the connect row.
  const http = trial.steps.filter((step) => step.kind === "http");
  const rest = trial.steps.filter((step) => step.kind !== "http");
  const failed = trial.error !== undefined || trial.connect?.ok === false || trial.steps.some((step) => !step.ok);
  return (
    <div data-testid="trial-result">
      <p className="small">
        <span className={`badge ${failed ? "bad" : "ok"}`} data-testid="trial-verdict">
          {failed ? "failed" : "ok"}
        </span>{" "}
        from agent {trial.agentHostname}
      </p>
      <ErrorAlert error={trial.error} testId="trial-agent-error" />
      {(trial.connect || trial.steps.length > 0) && (
        <DataTable
          caption="Each step of the trial session: its result, time, and the bytes sent and received"
          columns={["Step", "Result", { label: "Time", numeric: true }, "Sent", "Received", "Captured"]}
          testId="trial-steps"
        >
          {http.map((step) => (
            <StepRow key={step.index} step={step} />
          ))}
          {trial.connect && (
            <tr data-testid="trial-connect">
              <td>connect</td>
              <td>
                <Outcome ok={trial.connect.ok} error={trial.connect.error} />
              </td>
              <td className="num">{formatMs(trial.connect.ms)}</td>
              <td colSpan={3} />
            </tr>
          )}
          {rest.map((step) => (
            <StepRow key={step.index} step={step} />
          ))}
        </DataTable>
      )}
    </div>
  );
}

function StepRow({ step }: { step: TrialStep }) {
  return (
    <tr data-testid="trial-step" data-kind={step.kind} data-ok={String(step.ok)}>
      <td>
        {step.index + 1}. {step.kind}
      </td>
      <td>
        <Outcome ok={step.ok} error={step.error} />
        {step.error === "session-timeout" && step.received?.some((reply) => reply.matched === false) && (
          <div className="small muted" data-testid="trial-unmatched">
            replies came, but none matched the step&apos;s rule
          </div>
        )}
      </td>
      <td className="num">{formatMs(step.ms)}</td>
      <td>{step.sent && <Bytes preview={step.sent} />}</td>
      <td>
        {keyedByContent(step.received ?? [], (reply) => `${reply.hex ?? ""}${reply.text ?? ""}`).map(
          ({ item, key }) => (
            <Bytes key={key} preview={item} matched={item.matched} />
          ),
        )}
        {step.receivedMore ? <span className="small muted">and {step.receivedMore} more</span> : null}
      </td>
      <td>
        {Object.entries(step.captured ?? {}).map(([name, value]) => (
          <div key={name} className="small">
            <code>{`vars.${name}`}</code> = <code>{value}</code>
          </div>
        ))}
      </td>
    </tr>
  );
}

function Outcome({ ok, error }: { ok: boolean; error?: string | undefined }) {
  return <span className={`badge ${ok ? "ok" : "bad"}`}>{ok ? "ok" : (error ?? "failed")}</span>;
}

/** A message as text (control characters escaped) with its hex beneath, and its length when only the start is shown. */
function Bytes({ preview, matched }: { preview: BytesPreview | ReceivedPreview; matched?: boolean | undefined }) {
  const shown = preview.hex.length / 2;
  return (
    <div className="small" data-testid="trial-bytes">
      {matched !== undefined && <span className="muted">{matched ? "matched: " : "skipped: "}</span>}
      <code>{preview.text}</code>
      <details>
        <summary className="muted">
          {preview.bytes} byte{preview.bytes === 1 ? "" : "s"}
          {shown < preview.bytes ? `, first ${shown} shown` : ""} · hex
        </summary>
        <code className="trial-hex">{preview.hex}</code>
      </details>
    </div>
  );
}

const formatMs = (ms: number) => `${formatDecimal(ms, ms < 10 ? 1 : 0)} ms`;
