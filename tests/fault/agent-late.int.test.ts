import { describe, expect, it } from "vitest";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitUntil } from "../../infra/local/wait";
import { getRun, getSeries, waitForStatus } from "./support/api-client";
import { expectSeriesEqualsMeasured, untilAgentsMeasured } from "./support/assertions";
import type { FaultAgent } from "./support/fault-cluster";
import { faultClusterPerFile } from "./support/cluster-per-file";

const durationSec = 12;
// 2 s heartbeats: the gateway notices the cut after 6–8 s and the worker calls the agent lost 10 s later, so the
// run closes (its other agent done, this one lost) while the cut agent still holds every second it measured.
const heartbeatMs = 2_000;

const cluster = faultClusterPerFile({ agents: 2, heartbeatMs }, "agent-late");

describe("fault: one agent is cut off from 3 s into the run until after the run closed, then delivers every second it measured (issue 27)", () => {
  it("the run is judged again: its summary, verdict and events follow the stored series, and an event says how many seconds came late", async () => {
    const [kept, late] = cluster().agents as [FaultAgent, FaultAgent];
    const runId = await cluster().startRun(durationSec);
    await untilAgentsMeasured(cluster(), runId, 3);
    await late.cut();

    const { run: closed } = await waitForStatus(cluster().browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
    const closedLost = closed.events.filter((e) => e.kind === "seconds-lost");
    expect(
      closedLost.map((e) => e.agentId),
      "the close names the cut agent's seconds as lost",
    ).toEqual([late.id]);
    const storedAtClose = (await getSeries(cluster().browser, runId)).reduce((n, p) => n + p.messagesSentPerSec, 0);
    expect(closed.summary!.messagesSent).toBe(Math.round(storedAtClose));

    await late.restore();
    // Back on the network it re-sends every second it buffered, and reports its shard's end.
    await waitUntil(async () => late.tap.record.statuses.get(runId)?.lastSeq !== undefined, {
      what: "the cut agent's final shard-status",
      timeoutMs: 60_000,
    });
    await waitUntil(
      async () => (await getRun(cluster().browser, runId)).events.some((e) => e.kind === "judged-again"),
      {
        what: "the run to be judged again",
        timeoutMs: 30_000,
        intervalMs: 250,
      },
    );
    await expectSeriesEqualsMeasured(cluster(), runId, { durationSec, complete: [kept.id, late.id] });
    // The last late second may come after the first judgement again: wait until the summary has caught up.
    const series = async () => getSeries(cluster().browser, runId);
    const sentIn = (points: Awaited<ReturnType<typeof series>>) =>
      Math.round(points.reduce((n, p) => n + p.messagesSentPerSec, 0));
    await waitUntil(
      async () => (await getRun(cluster().browser, runId)).summary!.messagesSent === sentIn(await series()),
      { what: "the summary to agree with the series", timeoutMs: 20_000, intervalMs: 250 },
    );

    const run = await getRun(cluster().browser, runId);
    const points = await series();
    expect(run.summary).toMatchObject({ messagesSent: sentIn(points), durationSec: points.length });
    expect(points.filter((p) => p.agents === 2)).toHaveLength(durationSec);
    expect(run.verdict!.load!.measuredSeconds).toBe(points.length);
    // Nothing is lost any more: no seconds-lost event, no reason saying so.
    expect(run.events.filter((e) => e.kind === "seconds-lost")).toEqual([]);
    expect(run.verdict!.reasons.join("\n")).not.toMatch(/lost seconds|none of them arrived/);
    // Every second the close named lost arrived late, and the events that judged the run again count them all.
    const lostAtClose = Number(/\((\d+) s\)/.exec(closedLost[0]!.message)![1]);
    const again = run.events.filter((e) => e.kind === "judged-again").map((e) => e.message);
    for (const message of again)
      expect(message).toMatch(/^\d+ seconds? arrived after the run closed; the run was judged again/);
    expect(again.reduce((n, message) => n + Number(/^(\d+)/.exec(message)![1]), 0)).toBe(lostAtClose);
    console.log(
      `agent-late: closed with "${closedLost[0]!.message}"; then ${again.join(" | ")}; verdict ${run.verdict!.outcome}: ${run.verdict!.reasons.join(" | ")}`,
    );
  }, 180_000);
});
