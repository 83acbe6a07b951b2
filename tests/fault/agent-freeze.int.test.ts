import { describe, expect, it } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitForStatus } from "./support/api-client";
import { expectSeriesEqualsMeasured, untilAgentsMeasured } from "./support/assertions";
import type { FaultAgent } from "./support/fault-cluster";
import { faultClusterPerFile } from "./support/cluster-per-file";

const durationSec = 30;
// Shorter than the gateway's three silent heartbeats (15 s with the default 5 s): the frozen agent stays connected,
// so nothing but its own seconds tells the verdict it stood still.
const freezeMs = 12_000;

const cluster = faultClusterPerFile({ agents: 2 });

describe("fault: one agent of two is frozen (SIGSTOP) for 12 s mid-run, then resumed (SIGCONT) (issue 27)", () => {
  it("the run does not pass: the seconds the agent stood still count against the plan's schedule, and the verdict names the agent, not the server", async () => {
    const [kept, frozen] = cluster().agents as [FaultAgent, FaultAgent];
    const runId = await cluster().startRun(durationSec);
    await untilAgentsMeasured(cluster(), runId, 4);

    frozen.signal("SIGSTOP");
    // The freeze itself is the fault under test: it lasts its 12 s whatever happens meanwhile.
    await new Promise((resolve) => setTimeout(resolve, freezeMs));
    frozen.signal("SIGCONT");

    const { run } = await waitForStatus(cluster().browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
    expect(run.status).toBe("finished");
    await expectSeriesEqualsMeasured(cluster(), runId, { durationSec, complete: [kept.id, frozen.id] });

    // What the frozen agent sent on resume, as the relay read it: seconds that scheduled and sent nothing while
    // its clients stayed connected, and one that carries the whole freeze (the 4,024 scheduled, 3,801 skipped).
    const sent = [...frozen.tap.record.snapshots.get(runId)!.values()];
    const idle = sent.filter(
      (s) => s.counters.connectionsOpen > 0 && s.counters.messagesSent === 0 && (s.counters.scheduledSends ?? 0) === 0,
    );
    const catchUp = sent.reduce((a, b) =>
      (b.counters.scheduledSends ?? 0) > (a.counters.scheduledSends ?? 0) ? b : a,
    );
    expect(idle.length, "seconds the frozen agent stood still in").toBeGreaterThanOrEqual(5);
    // Whether the freeze lands in the catch-up second's p99 depends on which timer fires first on resume; the
    // longest hold of some second holds it either way.
    const longestHoldMs = Math.max(...sent.map((s) => s.health.eventLoopMaxMs ?? 0));
    expect(longestHoldMs, "the frozen agent's longest event-loop hold").toBeGreaterThanOrEqual(freezeMs - 1_000);
    const verdict = run.verdict!;
    console.log(
      `agent-freeze: ${idle.length} idle seconds from the frozen agent; its catch-up second scheduled ${catchUp.counters.scheduledSends}, ` +
        `skipped ${catchUp.counters.skippedSends}, loop p99 ${catchUp.health.eventLoopP99Ms} ms, longest hold ${longestHoldMs} ms; verdict ${verdict.outcome}: ${verdict.reasons.join(" | ")}; warnings: ${verdict.warnings.join(" | ")}; ` +
        `load ${JSON.stringify(verdict.load)}`,
    );

    expect(verdict).toMatchObject({ outcome: "incomplete", passed: false });
    const reasons = verdict.reasons.join("\n");
    expect(reasons).toMatch(/the load fell short of its schedule: \d+ of \d+ scheduled messages sent/);
    expect(reasons).toContain(`agent ${frozen.id} stood still (its event loop was held `);
    expect(verdict.load!.sentSends).toBeLessThan(verdict.load!.scheduledSends * 0.95);
    expect(verdict.warnings.join("\n")).not.toMatch(/server answered slower|replies came slower/);
  }, 180_000);
});
