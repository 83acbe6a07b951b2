import { SECRET_MASK } from "@throng/protocol/plan-secrets";
import type { RunView } from "@throng/protocol/run";
import { formatDateTime } from "../../lib/shared/format";
import { describeLoad, describeScenario, describeTarget } from "../../lib/plans/plan-summary";

/** The plan exactly as this run used it: the run keeps its own copy, so later edits to the plan do not change it. */
export function ReportPlan({ run }: { run: RunView }) {
  return (
    <section className="panel" aria-labelledby="report-plan-title" data-testid="report-plan">
      <h2 id="report-plan-title">Plan used</h2>
      <p className="muted">
        The copy of plan “{run.planName}” (id <code>{run.planId}</code>) taken when the run was created on{" "}
        {formatDateTime(run.createdAt)}; edits made to the plan since do not change it.
      </p>
      <ul className="run-facts">
        <li>
          <span className="label">Target</span>
          <span className="value">{describeTarget(run.spec)}</span>
        </li>
        <li>
          <span className="label">Load</span>
          <span className="value">{describeLoad(run.spec)}</span>
        </li>
        <li>
          <span className="label">Scenario</span>
          <span className="value">{describeScenario(run.spec)}</span>
        </li>
      </ul>
      {JSON.stringify(run.spec).includes(SECRET_MASK) && (
        <p className="muted small" data-testid="report-plan-masked">
          {SECRET_MASK} marks what a report does not show: header values, session and http steps, answers, heartbeats,
          leave steps, script parameters and a URL&apos;s credentials and query, where passwords are often written. A
          field that names an organisation secret ({"{{secrets.NAME}}"}) is shown as written.
        </p>
      )}
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a pre that scrolls is named for screen readers; axe checks it in the journeys. */}
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a pre that scrolls must be reachable by keyboard (axe's scrollable-region-focusable). */}
      <pre className="report-plan-spec" data-testid="report-plan-spec" tabIndex={0} aria-label="Plan as JSON">
        {JSON.stringify(run.spec, null, 2)}
      </pre>
    </section>
  );
}
