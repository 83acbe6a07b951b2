"use client";

import Link from "next/link";
import { useState } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { MAX_RUNS_LIMIT } from "@throng/protocol/run-list";
import { api } from "../../lib/shared/api";
import { runsApi } from "../../lib/runs/runs-api";
import { formatDateTime } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import {
  describeAgents,
  describeLoad,
  describeScenario,
  describeTarget,
  scenarioScriptHash,
} from "../../lib/plans/plan-summary";
import { planToText, type PlanFormat } from "../../lib/plans/plan-text";
import { CodeBlock } from "../ui/code-block";
import { downloadPlan } from "./plan-download";
import { PlanSchedulePanel } from "../schedules/plan-schedule-panel";
import { PlanBaseline } from "../runs/run-baseline";
import { PlanTrend } from "./plan-trend";
import { PlanShelfActions } from "./plan-shelf-actions";
import { PlanVersions } from "./plan-versions";
import { RunList } from "../runs/run-list";
import { StartRunButton } from "../runs/start-run-button";
import { can } from "../../lib/shared/settings-permissions";
import { useMe } from "../shell/session-gate";
import { Tabs } from "../ui/tabs";
import { ErrorAlert } from "../ui/error-alert";

const FORMATS = [
  { id: "yaml", label: "YAML" },
  { id: "json", label: "JSON" },
] as const;

/** One plan: what it does, the plan file, its recent runs, and the ways to run, copy or export it. */
export function PlanDetail({ planId }: { planId: string }) {
  const plan = useApiQuery(queryKeys.plan(planId), (signal) => api.getPlan(planId, signal));
  const runs = useApiQuery(queryKeys.recentRuns, (signal) => api.listRuns(signal), { pollMs: 5000 });
  // The trend reads the plan's last 100 runs once, and again each time another of them ends (the count is in its key);
  // the chart drawn stays while the next read comes.
  const ended = (runs.data ?? []).filter((run) => run.planId === planId && run.endedAt !== null).length;
  const trend = useApiQuery(
    queryKeys.planTrend(planId, MAX_RUNS_LIMIT, ended),
    (signal) => runsApi.page({ plan: planId, limit: MAX_RUNS_LIMIT }, signal),
    { keepPrevious: true },
  );
  const [format, setFormat] = useState<PlanFormat>("yaml");
  const { role } = useMe();

  if (plan.error) {
    return (
      <p className="alert" role="alert">
        {plan.error}
      </p>
    );
  }
  if (!plan.data) return <p className="loading">Loading plan…</p>;
  const { spec } = plan.data;
  const version = plan.data.version ?? 1;
  const recent = (runs.data ?? []).filter((run) => run.planId === planId).slice(0, 10);
  const text = planToText(spec, format);
  const scriptHash = scenarioScriptHash(spec);
  // The org's limits (an admin changes them) apart from the agents' own permissions (their owners restart them).
  const orgWarnings = (plan.data.warnings ?? []).filter((warning) => warning.path !== "agents");
  const agentWarnings = (plan.data.warnings ?? []).filter((warning) => warning.path === "agents");

  return (
    <>
      <div className="page-head">
        <div>
          <p className="muted small">
            <Link href="/plans">Plans</Link> / created {formatDateTime(plan.data.createdAt)} ·{" "}
            <span data-testid="plan-version">version {version}</span>, saved {formatDateTime(plan.data.updatedAt)}
          </p>
          <h1>{plan.data.name}</h1>
          {plan.data.archivedAt && (
            <p className="notice" data-testid="plan-archived">
              Archived {formatDateTime(plan.data.archivedAt)}: hidden from the plan list; its runs are kept and it can
              still run.
            </p>
          )}
          {orgWarnings.length ? (
            <div className="notice" role="status" data-testid="plan-warnings">
              <p>
                This plan cannot start as the organisation is set up now
                {can(role, "settings.manage") ? (
                  <>
                    {" "}
                    (change the limits under <Link href="/settings/organisation">Settings → Organisation</Link>, or the
                    plan):
                  </>
                ) : (
                  " (an admin or owner can change the limits under Settings → Organisation, or edit the plan):"
                )}
              </p>
              <ul>
                {orgWarnings.map((warning) => (
                  <li key={warning.path} data-testid="plan-warning" data-path={warning.path}>
                    <code>{warning.path}</code>: {warning.message}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {agentWarnings.map((warning) => (
            <div key={warning.path} className="notice" role="status" data-testid="plan-agent-warning">
              <p>
                {warning.message} (<Link href="/agents">Agents</Link>).
              </p>
            </div>
          ))}
        </div>
        <div className="head-actions">
          {can(role, "plan.write") && (
            <>
              <Link className="button" href={`/plans/${planId}/edit`} data-testid="edit-plan">
                Edit
              </Link>
              <Link className="button" href={`/plans/new?from=${planId}`} data-testid="clone-plan">
                Clone
              </Link>
              <PlanShelfActions plan={plan.data} />
            </>
          )}
          <button className="button" type="button" onClick={() => downloadPlan(spec, format)} data-testid="export-plan">
            Export {format === "yaml" ? "YAML" : "JSON"}
          </button>
          {can(role, "run.start") && <StartRunButton planId={planId} planName={plan.data.name} />}
        </div>
      </div>
      <section className="panel" aria-label="What the plan does">
        <ul className="run-facts">
          {[
            ["Target", describeTarget(spec)],
            ["Scenario", describeScenario(spec)],
            ["Load", describeLoad(spec)],
            ["Agents", describeAgents(spec)],
          ].map(([label, value]) => (
            <li key={label}>
              <span className="label">{label}</span>
              <span className="value">{value}</span>
            </li>
          ))}
        </ul>
        {scriptHash && (
          <p className="small" data-testid="plan-script">
            Each client runs the script{" "}
            <Link href={`/scripts/${scriptHash}`}>
              <code>{scriptHash}</code>
            </Link>
            , on agents started with --allow-scripts.
          </p>
        )}
      </section>
      <PlanSchedulePanel planId={planId} canSchedule={can(role, "run.start")} />
      <PlanBaseline planId={planId} baselineRunId={plan.data.baselineRunId} />
      <section className="panel" aria-labelledby="plan-file-title">
        <h2 id="plan-file-title">Plan file</h2>
        <p className="muted">Version {version}. Each save makes a new version; every run keeps the version it ran.</p>
        <Tabs
          label="Plan file format"
          idPrefix="plan-file"
          tabs={FORMATS}
          selected={format}
          onSelect={(id) => setFormat(id as PlanFormat)}
        >
          <CodeBlock text={text} label={`Plan as ${format.toUpperCase()}`} testId="plan-file" wrap={false} />
        </Tabs>
      </section>
      <PlanVersions key={version} planId={planId} current={version} />
      {ended > 0 && (
        <section className="panel" aria-labelledby="plan-trend-title">
          <h2 id="plan-trend-title">Trend</h2>
          <ErrorAlert error={trend.error} />
          {trend.data && <PlanTrend runs={trend.data.runs} slos={spec.slos} baselineRunId={plan.data.baselineRunId} />}
        </section>
      )}
      <section aria-labelledby="plan-runs-title">
        <h2 id="plan-runs-title">Recent runs</h2>
        <ErrorAlert error={runs.error} />
        {runs.data && recent.length === 0 && (
          <div className="empty" data-testid="plan-runs-empty">
            <strong>This plan has not run yet.</strong>
            Press Start run above; an agent must be online.
          </div>
        )}
        {recent.length > 0 && (
          <>
            <RunList runs={recent} now={Date.now()} />
            <p className="small">
              <Link href={`/runs?plan=${planId}`}>All runs of this plan</Link>
            </p>
          </>
        )}
      </section>
    </>
  );
}
