import { describe, expect, it } from "vitest";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { waitUntil } from "../../infra/local/wait";
import { waitForStatus } from "./support/api-client";
import { expectSeriesEqualsMeasured } from "./support/assertions";
import { faultClusterPerFile } from "./support/cluster-per-file";
import { storedFacts } from "./support/series-check";

const durationSec = 10;

const cluster = faultClusterPerFile({ agents: 2, apis: 2 }); // agents connect to api-0 only

describe("fault: two API instances, the agents on one and the browser's live stream on the other", () => {
  it("the browser on api-1 receives every numbered message and ends with the same series the agents measured", async () => {
    const runId = await cluster().startRun(durationSec);
    const live = await cluster().browser.watchLive(cluster().apiUrls[1]!, runId);
    try {
      const finishedRun = () =>
        live.envelopes.find((e) => e.message.type === "run" && e.message.run.status === "finished");
      await waitUntil(async () => finishedRun() !== undefined, {
        what: "the finished run on api-1's live stream",
        timeoutMs: 60_000,
      });
      const { run } = await waitForStatus(cluster().browser, runId, ["finished"], 5_000);
      expect(run.error).toBeNull();

      // Numbered per run across instances (Redis INCR): a browser that saw no gap needs no refetch. The first
      // envelope is the run as of its seq; a message it already covers may still follow it (seq ≤ the first's).
      const [first, ...rest] = live.envelopes.map((e) => e.seq);
      const newer = rest.filter((seq) => seq > first!);
      expect(newer).toEqual(newer.map((_, i) => first! + 1 + i));
      // Each second is re-published as agents' snapshots arrive; the last copy of each is the stored one. The
      // agents' health comes apart from the points, once per agent and second that a point carried first.
      const lastPoint = new Map<number, SeriesPoint>();
      const health = new Map<number, Map<string, NonNullable<SeriesPoint["agentHealth"]>[number]>>();
      for (const e of live.envelopes) {
        if (e.message.type === "point") lastPoint.set(e.message.point.t, e.message.point);
        if (e.message.type !== "agent-health") continue;
        const second = health.get(e.message.t) ?? new Map();
        for (const agent of e.message.agents) second.set(agent.agentId, agent);
        health.set(e.message.t, second);
      }
      for (const [t, point] of lastPoint)
        lastPoint.set(t, { ...point, agentHealth: [...(health.get(t)?.values() ?? [])] });
      const { expected, stored } = await cluster().compare(runId);
      expect(storedFacts([...lastPoint.values()])).toEqual(stored);
      expect(stored).toEqual(expected);
    } finally {
      live.stop();
    }
    await expectSeriesEqualsMeasured(cluster(), runId, { durationSec, complete: cluster().agents.map((a) => a.id) });
  }, 120_000);
});
