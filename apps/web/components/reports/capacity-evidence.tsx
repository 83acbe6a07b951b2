import type { CapacityEstimate } from "@throng/protocol/report";
import { formatInteger, formatMs, formatRate } from "../../lib/shared/format";
import { capacityFacts, metricName, saturatedAgentLines } from "../../lib/reports/report-summary";
import { CapacityChart } from "./capacity-chart";
import { DataTable, numeric } from "../ui/data-table";

interface CapacityEvidenceProps {
  capacity: CapacityEstimate;
  hostname?: (agentId: string) => string;
}

/** The capacity estimate, whether it can be trusted, and the steps and fit it rests on. */
export function CapacityEvidence({ capacity, hostname }: CapacityEvidenceProps) {
  const saturated = saturatedAgentLines(capacity, hostname);
  return (
    <section
      className="panel"
      aria-labelledby="capacity-title"
      data-testid="report-capacity"
      data-valid={capacity.valid}
    >
      <h2 id="capacity-title">
        Capacity estimate{" "}
        <span className={`badge ${capacity.valid ? "ok" : "bad"}`} data-testid="capacity-validity">
          {capacity.valid ? "valid" : "invalid"}
        </span>
      </h2>
      {!capacity.valid && (
        <div className="alert" role="note" data-testid="capacity-problems">
          <strong>This estimate cannot be trusted.</strong>
          <ul>
            {[...capacity.problems, ...saturated].map((problem) => (
              <li key={problem}>{problem}</li>
            ))}
          </ul>
        </div>
      )}
      <dl className="summary-grid capacity-facts">
        {capacityFacts(capacity).map((fact) => (
          <div key={fact.label}>
            <dt>{fact.label}</dt>
            <dd data-testid={`capacity-fact-${fact.label.split(" ")[0]!.toLowerCase()}`}>{fact.value}</dd>
            {fact.hint && <span className="muted small">{fact.hint}</span>}
          </div>
        ))}
      </dl>
      {capacity.steps.length > 0 ? (
        <CapacityChart capacity={capacity} />
      ) : (
        <p className="muted">No step was measured long enough to judge.</p>
      )}
      {/* A plain table, not <details>: a closed disclosure would vanish from the PDF. */}
      <h3>Steps</h3>
      <DataTable
        caption="Each step of the capacity search"
        columns={["Step", ...numeric("Clients", "Messages/s", "RTT p99"), "SLOs", "Agents"]}
      >
        {capacity.steps.map((step) => (
          <tr key={step.step} data-testid="capacity-step" data-held={step.held}>
            <td>{step.step + 1}</td>
            <td className="num">{formatInteger(step.clients)}</td>
            <td className="num">{formatRate(step.throughputPerSec)}</td>
            <td className="num">{formatMs(step.rttP99Ms)}</td>
            <td>
              {step.held ? (
                <span className="badge ok">held</span>
              ) : (
                <span className="badge bad">
                  broke{" "}
                  {step.slos
                    .filter((s) => !s.passed)
                    .map((s) => metricName(s.metric))
                    .join(", ")}
                </span>
              )}
            </td>
            <td>
              {step.saturatedAgents.length ? (
                <span className="badge warn">{step.saturatedAgents.map((a) => a.reason).join("; ")}</span>
              ) : (
                <span className="muted">ok</span>
              )}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}
