import { ThrongError } from "@throng/protocol/errors";
import type { PlanSpec, Slo } from "@throng/protocol/plan";
import { scriptSloMetric } from "@throng/protocol/slo-judge";

type Metric = Slo["metric"];

// The judging itself is shared with the standalone agent and the browser.
export { judgeSlos, measuredOfPoint, measuredOfSummary, type Measured } from "@throng/protocol/slo-judge";

/** Why an SLO cannot apply to a plan (its scenario never measures it), or null. Checked when a plan is saved. */
export function sloProblem(metric: Metric, spec: PlanSpec): string | null {
  const kind = spec.scenario.kind;
  const script = scriptSloMetric(metric);
  if (script) {
    if (spec.scenario.kind !== "script") return "a script's metrics are measured only by script plans";
    const wanted = script.stat === "count" ? "counter" : "histogram";
    const declared = spec.scenario.metrics?.find((m) => m.name === script.name);
    if (!declared) return `the plan declares no script metric "${script.name}": add { name: "${script.name}", kind: "${wanted}" } to scenario.metrics`;
    if (declared.kind !== wanted) return `"${script.name}" is declared a ${declared.kind}; -${script.stat} needs a ${wanted}`;
    return null;
  }
  if (metric === "broadcast-p99-ms" && kind !== "movement-sync") return "broadcast latency is measured only by movement-sync plans";
  if (metric === "login-p99-ms" && kind !== "login-storm") return "login time is measured only by login-storm plans";
  if (metric === "loss-rate" && kind !== "movement-sync" && spec.target.protocol !== "udp") {
    return "loss is measured only over UDP or by movement-sync plans";
  }
  if ((metric === "rtt-p50-ms" || metric === "rtt-p99-ms" || metric === "rtt-corrected-p99-ms") && kind === "login-storm") {
    return "login-storm plans measure connect and login times, not round trips";
  }
  return null;
}

/** Refuses a plan whose SLOs name metrics its scenario never produces, naming each one. */
export function assertSlosApply(spec: PlanSpec): void {
  const fields = (spec.slos ?? []).flatMap((slo, i) => {
    const problem = sloProblem(slo.metric, spec);
    return problem ? [{ path: `slos.${i}.metric`, message: `${slo.metric}: ${problem}` }] : [];
  });
  if (fields.length) throw new ThrongError("validation_failed", `Invalid plan (${fields[0]!.path}: ${fields[0]!.message})`, fields);
}
