"use client";

import Link from "next/link";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { formatDateTime, formatInteger } from "../../lib/shared/format";
import { gettingStartedOpen, gettingStartedSteps, type GettingStartedStep } from "../../lib/shell/getting-started";
import { queryKeys } from "../../lib/shared/query-keys";
import { reportApi } from "../../lib/shared/report-api";
import { RunList } from "../runs/run-list";
import { ErrorAlert } from "../ui/error-alert";

const RECENT_RUNS = 5;
const POLL_MS = 5000;

/**
 * Home: what a team checks first — the latest runs with their verdicts, the agents online, the last capacity
 * estimate per target — and, until an organisation has done each once, the steps to its first run.
 */
export function HomeView() {
  // Cached under the same keys as the Agents and Runs pages read, so coming back Home shows the last answer at once.
  const agents = useApiQuery(queryKeys.agents, (signal) => api.listAgents(signal), { pollMs: POLL_MS });
  const plans = useApiQuery(queryKeys.plans("active"), (signal) => api.listPlans(signal));
  const runs = useApiQuery(queryKeys.recentRuns, (signal) => api.listRuns(signal), { pollMs: POLL_MS });
  const targets = useApiQuery(queryKeys.targets, (signal) => reportApi.targets(signal));
  const error = agents.error ?? plans.error ?? runs.error;
  const loaded = agents.data && plans.data && runs.data;
  const steps = loaded
    ? gettingStartedSteps({ agents: agents.data!, plans: plans.data!.length, runs: runs.data!.length })
    : null;
  const online = agents.data?.filter((agent) => agent.status !== "offline").length ?? 0;

  return (
    <>
      <div className="page-head">
        <div>
          <h1>Home</h1>
          <p>The latest runs, the agents ready to take load, and what each target was last found to hold.</p>
        </div>
      </div>
      <ErrorAlert error={error} />
      {!loaded ? (
        !error && <p className="loading">Loading…</p>
      ) : (
        <>
          {steps && gettingStartedOpen(steps) && <Checklist steps={steps} />}
          <section className="panel" aria-labelledby="home-agents-title" data-testid="home-agents">
            <h2 id="home-agents-title">Agents</h2>
            <p>
              <strong data-testid="home-agents-online">{formatInteger(online)}</strong> of{" "}
              {formatInteger(agents.data!.length)} online · <Link href="/agents">Agents</Link>
            </p>
          </section>
          <section aria-labelledby="home-runs-title" data-testid="home-runs">
            <h2 id="home-runs-title">Recent runs</h2>
            {runs.data!.length === 0 ? (
              <p className="muted">No runs yet.</p>
            ) : (
              <>
                <RunList runs={runs.data!.slice(0, RECENT_RUNS)} now={Date.now()} />
                <p className="small">
                  <Link href="/runs">All runs</Link>
                </p>
              </>
            )}
          </section>
          <section aria-labelledby="home-targets-title" data-testid="home-targets">
            <h2 id="home-targets-title">Capacity by target</h2>
            {targets.data && targets.data.length > 0 ? (
              <ul className="home-targets">
                {targets.data.map((target) => (
                  <li key={target.name} data-testid="home-target" data-target={target.name}>
                    <Link href={`/targets/${encodeURIComponent(target.name)}`}>{target.name}</Link>:{" "}
                    <strong>
                      {target.latest.clients === null
                        ? "no level held"
                        : `${formatInteger(target.latest.clients)} clients`}
                    </strong>
                    {!target.latest.valid && <span className="badge warn"> invalid</span>}{" "}
                    <span className="muted small">
                      · build {target.latest.build} · {formatDateTime(target.latest.createdAt)}
                    </span>
                  </li>
                ))}
              </ul>
            ) : (
              <p className="muted">
                No estimate saved yet: run a plan with a step-up load, then Save estimate on its report.
              </p>
            )}
          </section>
        </>
      )}
    </>
  );
}

function Checklist({ steps }: { steps: readonly GettingStartedStep[] }) {
  const done = steps.filter((step) => step.done).length;
  return (
    <section className="panel" aria-labelledby="getting-started-title" data-testid="getting-started">
      <h2 id="getting-started-title">
        Getting started{" "}
        <span className="muted small">
          {done} of {steps.length} done
        </span>
      </h2>
      <ol className="checklist">
        {steps.map((step) => (
          <li key={step.id} data-testid="getting-started-step" data-step={step.id} data-done={step.done}>
            <span className={`check ${step.done ? "done" : ""}`} aria-hidden="true">
              {step.done ? "✓" : ""}
            </span>
            <span className="sr-only">{step.done ? "Done: " : "To do: "}</span>
            <span>
              {step.done ? step.title : <Link href={step.href}>{step.title}</Link>}
              <span className="muted small"> — {step.detail}</span>
            </span>
          </li>
        ))}
      </ol>
    </section>
  );
}
