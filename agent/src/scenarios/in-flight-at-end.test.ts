import { describe, expect, it } from "vitest";
import type { SnapshotCounters } from "@throng/protocol/snapshot";
import { createSnapshotBuilder } from "../metrics/snapshot-builder";
import { createFakeTransport, silenced } from "../testing/fake-transport";
import type { Transport } from "../transports/transport";
import { createEchoFlood } from "./echo-flood";
import { createLoginStorm } from "./login-storm";
import type { ScenarioContext, ScenarioRunner } from "./scenario";

const runId = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";

/** The fake transport, except that nothing is ever answered. */
function silentTransport(): Transport {
  const { transport } = createFakeTransport();
  return { open: (events) => transport.open(silenced(events)) };
}

async function openClients(runner: ScenarioRunner, clients: number): Promise<void> {
  for (let i = 0; i < clients; i += 1) runner.startClient(i);
  // The fake transport opens on the next turn of the loop.
  await new Promise((resolve) => setTimeout(resolve, 20));
}

function builder() {
  return createSnapshotBuilder({
    runId,
    health: { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} },
  });
}

/** Starts `clients` clients of a scenario no server ever answers, ends the run and returns that interval's counters. */
async function countersAtRunEnd(
  start: (context: ScenarioContext) => ScenarioRunner,
  clients: number,
): Promise<SnapshotCounters> {
  const metrics = builder();
  const runner = start({ transport: silentTransport(), metrics: metrics.metrics });
  await openClients(runner, clients);
  await runner.close();
  return metrics.take({ seq: 0, intervalStart: 0, intervalMs: 100, clients }).counters;
}

describe("messages in flight when the run ends", () => {
  it("echo-flood: each client's unanswered window is in flight at the end, not lost and not an error", async () => {
    const counters = await countersAtRunEnd(
      (context) =>
        createEchoFlood(
          { kind: "echo-flood", messageBytes: 16, maxInFlight: 4, message: { body: '{"seq":{{seq}}}' } },
          context,
        ),
      3,
    );
    expect(counters).toMatchObject({ messagesSent: 12, inFlightAtEnd: 12, errors: 0 });
    expect(counters.lost).toBeUndefined();
  });

  it("login-storm: a login still unanswered at the end is in flight, not a failed login", async () => {
    const counters = await countersAtRunEnd(
      (context) => createLoginStorm({ kind: "login-storm", login: true }, context),
      3,
    );
    expect(counters).toMatchObject({ messagesSent: 3, inFlightAtEnd: 3, errors: 0 });
    expect(counters.loginsFailed).toBeUndefined();
  });

  it("a client stopped by a ramp-down is not at the run's end: nothing counts as in flight at the end", async () => {
    const metrics = builder();
    const runner = createLoginStorm(
      { kind: "login-storm", login: true },
      { transport: silentTransport(), metrics: metrics.metrics },
    );
    await openClients(runner, 1);
    runner.stopClient!(0);
    expect(
      metrics.take({ seq: 0, intervalStart: 0, intervalMs: 100, clients: 0 }).counters.inFlightAtEnd,
    ).toBeUndefined();
  });
});
