import { describe, expect, it } from "vitest";
import type { RunAssignment } from "@throng/protocol/agent";
import { runOnEngines } from "../engine/engines";
import { assignment, isSnapshot, isStatus, ready } from "../testing/agent-harness";
import { useAgentBed } from "../testing/agent-bed.test-support";
import { netqAddon } from "./kernel-queue";

/**
 * Network cohorts on an agent of the control plane (agent/PROTOCOL.md §4–§6): its shard runs through the same
 * engines as `throng-agent connect` (the network prepared before the load), its snapshots carry each cohort's
 * figures and pass the gateway's schema, and a cohort it cannot apply fails the shard before any load, saying why.
 */

const bed = useAgentBed();

/** An agent whose shards run as `connect` runs them: on the engines, their network prepared first. */
async function connectedAgent() {
  bed.startAgent({
    runShard: (shard, options) => runOnEngines(shard, { ...options, engines: 1 }),
  });
  const connection = await bed.gateway.nextConnection();
  await connection.waitFor((m) => m.type === "hello");
  connection.send(ready());
  return connection;
}

function withNetwork(base: RunAssignment, plan: Partial<RunAssignment["plan"]>): RunAssignment {
  return { ...base, plan: { ...base.plan, ...plan } };
}

const kernelUnavailable =
  process.getuid?.() !== 0
    ? "needs root (CAP_NET_ADMIN)"
    : typeof netqAddon() === "string"
      ? (netqAddon() as string)
      : undefined;

describe("network cohorts on a control plane's agent", () => {
  it.skipIf(kernelUnavailable !== undefined)(
    `§5 a WebSocket cohort 15 ms each way: every snapshot carries the cohort's own figures, valid at the gateway${kernelUnavailable ? ` (skipped: ${kernelUnavailable})` : ""}`,
    async () => {
      const connection = await connectedAgent();
      const base = assignment(bed.target.url, { durationSec: 3, startAt: Date.now() + 500, clients: 6 });
      connection.send({
        type: "run-assignment",
        payload: withNetwork(base, { network: [{ name: "far", share: 0.5, delayMs: 15 }] }),
      });
      await connection.waitFor(isStatus("finished"));
      const snapshots = connection.received.filter(isSnapshot).map((m) => m.payload);
      expect(connection.invalid).toEqual([]);
      expect(snapshots.length).toBeGreaterThan(0);
      expect(snapshots.every((s) => s.cohorts?.far?.applied === "kernel")).toBe(true);
      expect(Math.max(...snapshots.map((s) => s.cohorts!.far!.clients))).toBe(3);
      expect(snapshots.reduce((sum, s) => sum + (s.cohorts!.far!.counters.networkPackets ?? 0), 0)).toBeGreaterThan(0);
    },
  );

  it("§6 a TCP cohort with loss the agent cannot apply below TCP fails the shard before any load, saying what to do", async () => {
    const connection = await connectedAgent();
    const base = assignment(bed.target.url, { durationSec: 3, startAt: Date.now() + 500 });
    // [::1] is loopback, but the kernel path selects a cohort's packets by IPv4 source address.
    const refused = withNetwork(base, {
      target: { protocol: "tcp", host: "::1", port: 9, framing: { kind: "length-prefix", headerBytes: 4 } },
      network: [{ name: "mobile", share: 0.5, delayMs: 20, lossPercent: 5 }],
    });
    connection.send({ type: "run-assignment", payload: refused });
    const failed = await connection.waitFor(isStatus("failed"));
    expect(failed.payload.error).toMatch(
      /network\[0\] "mobile" asks for lossPercent on a tcp target, which only the kernel path can apply .*not an IPv4 loopback address/,
    );
    expect(failed.payload.lastSeq).toBe(-1);
    expect(connection.received.filter(isSnapshot)).toEqual([]);
  });
});
