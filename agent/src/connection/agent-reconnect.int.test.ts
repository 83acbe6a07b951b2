import { describe, expect, it } from "vitest";
import { runShard } from "../engine/run-shard";
import {
  AGENT_ID,
  SECRET,
  TOKEN,
  assignment,
  isSnapshot,
  isStatus,
  ready,
  snapshotSeqs,
} from "../testing/agent-harness";
import { useAgentBed } from "../testing/agent-bed.test-support";
import { writeCredential } from "./credential-file";

const bed = useAgentBed();

describe("agent reconnects and close codes", () => {
  it("§9 reconnects with the credential, resends unacked snapshots, and does not run a re-sent assignment twice", async () => {
    let engineStarts = 0;
    bed.startAgent({
      runShard: (...args) => {
        engineStarts += 1;
        return runShard(...args);
      },
    });
    const first = await bed.gateway.nextConnection();
    await first.waitFor((m) => m.type === "hello");
    first.send(ready());
    const run = assignment(bed.target.url, { durationSec: 4, startAt: Date.now() });
    first.send({ type: "run-assignment", payload: run });
    await first.waitFor((m) => isSnapshot(m) && m.payload.seq === 0);
    first.send({ type: "snapshot-ack", payload: { runId: run.runId, seq: 0 } });
    await first.waitFor((m) => isSnapshot(m) && m.payload.seq === 1);
    first.terminate(); // seq 1 stays unacknowledged

    const second = await bed.gateway.nextConnection();
    const hello = await second.waitFor((m) => m.type === "hello");
    expect(hello.payload).toMatchObject({ auth: { kind: "credential", agentId: AGENT_ID, secret: SECRET } });
    second.send(ready({ credential: false }));
    second.send({ type: "run-assignment", payload: run }); // the gateway re-sends active assignments

    const finished = await second.waitFor(isStatus("finished"));
    expect(engineStarts).toBe(1);
    const resent = snapshotSeqs(second.received);
    expect(resent).not.toContain(0);
    expect(resent[0]).toBe(1);
    expect(new Set([...snapshotSeqs(first.received), ...resent])).toEqual(new Set([0, 1, 2, 3]));
    expect(finished.payload.lastSeq).toBe(3);
  });

  it("§9 stops its load by itself after orphanGraceMs without the server, and reports failed on return", async () => {
    const agent = bed.startAgent({ handshakeTimeoutMs: 30_000 });
    const first = await bed.gateway.nextConnection();
    await first.waitFor((m) => m.type === "hello");
    first.send(ready({ orphanGraceMs: 1_000 }));
    const run = assignment(bed.target.url, { durationSec: 60, startAt: Date.now() });
    first.send({ type: "run-assignment", payload: run });
    await first.waitFor((m) => isSnapshot(m) && m.payload.seq === 0);
    first.terminate();

    const second = await bed.gateway.nextConnection();
    await second.waitFor((m) => m.type === "hello"); // no ready yet: still cut off
    await agent.log.waitFor(/stopping the load \(no contact with the server for 1 s\)/);
    second.send(ready({ credential: false }));

    const failed = await second.waitFor(isStatus("failed"));
    expect(failed.payload.error).toBe("no contact with the server for 1 s");
    expect(failed.payload.lastSeq).toBeLessThan(5);
    expect(snapshotSeqs(second.received).at(-1)).toBe(failed.payload.lastSeq);
  });

  it("§8 exits on close 4003 (unauthenticated) with the server's reason, without reconnecting", async () => {
    const agent = bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    await connection.waitFor((m) => m.type === "hello");
    connection.close(4003, "enrolment token expired; create a new one");
    expect(await agent.exit).toEqual({
      kind: "fatal",
      closeCode: 4003,
      reason: "enrolment token expired; create a new one",
    });
  });

  it("§8 exits on close 4006 (version unsupported)", async () => {
    const agent = bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    await connection.waitFor((m) => m.type === "hello");
    connection.close(4006, "agent protocol v1 unsupported");
    expect(await agent.exit).toMatchObject({ kind: "fatal", closeCode: 4006 });
  });

  it("§8 reconnects after any other close, e.g. 1001 going away and 4011 internal", async () => {
    const agent = bed.startAgent();
    for (const code of [1001, 4011]) {
      const connection = await bed.gateway.nextConnection();
      await connection.waitFor((m) => m.type === "hello");
      connection.close(code, "try again");
    }
    const third = await bed.gateway.nextConnection();
    await third.waitFor((m) => m.type === "hello");
    expect(agent.log.lines.filter((line) => line.includes("reconnecting in"))).toHaveLength(2);
  });

  it("§2 falls back to the enrolment token once when the stored credential is rejected", async () => {
    await writeCredential(bed.config.path, bed.gateway.server, { agentId: AGENT_ID, secret: "revoked" });
    const agent = bed.startAgent();

    const first = await bed.gateway.nextConnection();
    expect((await first.waitFor((m) => m.type === "hello")).payload).toMatchObject({
      auth: { kind: "credential", secret: "revoked" },
    });
    first.close(4003, "credential revoked");
    const second = await bed.gateway.nextConnection();
    expect((await second.waitFor((m) => m.type === "hello")).payload).toMatchObject({
      auth: { kind: "enrolment", token: TOKEN },
    });
    second.close(4003, "token already used");
    expect(await agent.exit).toEqual({ kind: "fatal", closeCode: 4003, reason: "token already used" });
  });
});
