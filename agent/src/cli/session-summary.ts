import type { RunSummary } from "@throng/protocol/run";

/** What a step is, from the plan's session (a login storm's `login: true` is a send and an expect). */
type StepKinds = readonly string[];

/**
 * The summary's session lines: each step's time (p50, p99, max, how many ended well) and its failures by cause,
 * merged over the run as the control plane merges them. Undefined for a run without a session's steps.
 */
export function sessionStepsText(summary: RunSummary, kinds: StepKinds): string | undefined {
  const steps = summary.sessionSteps;
  if (!steps || Object.keys(steps).length === 0) return undefined;
  const count = Math.max(kinds.length, ...Object.keys(steps).map((step) => Number(step) + 1));
  const lines = Array.from({ length: count }, (_, index) => {
    const stats = steps[String(index)];
    const label = `  step ${String(index).padStart(2)} ${(kinds[index] ?? "").padEnd(7)}`;
    if (!stats) return `${label}  not reached`;
    const time =
      stats.count === 0
        ? "none ended well"
        : `p50 ${stats.p50Ms} ms  p99 ${stats.p99Ms} ms  max ${stats.maxMs} ms  (${stats.count} done)`;
    const failures = Object.entries(stats.failures).filter(([, n]) => (n ?? 0) > 0);
    return `${label}  ${time}${failures.length ? `; failed ${JSON.stringify(Object.fromEntries(failures))}` : ""}`;
  });
  return ["session steps:", ...lines].join("\n");
}

/** The kinds of a plan's session steps, in order, for sessionStepsText. */
export function sessionStepKinds(scenario: { kind: string; session?: readonly { kind: string }[]; login?: boolean }) {
  if (scenario.session?.length) return scenario.session.map((step) => step.kind);
  return scenario.kind === "login-storm" && scenario.login ? ["send", "expect"] : [];
}
