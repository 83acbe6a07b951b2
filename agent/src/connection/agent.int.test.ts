import { readFile, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { describe, expect, it } from "vitest";
import { AGENT_PROTOCOL_VERSION } from "@throng/protocol/agent";
import { THRONG_VERSION } from "@throng/protocol/version";
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

const HOUR = 3_600_000;
const bed = useAgentBed();

describe("agent connection against a gateway double", () => {
  it("§2 enrols with the token, stores the credential 0600 without logging it, and §3 heartbeats on its own clock", async () => {
    const agent = bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    expect(connection.path).toBe("/agent/v1/connect");
    const hello = await connection.waitFor((m) => m.type === "hello");
    expect(hello.payload).toMatchObject({
      agentVersion: THRONG_VERSION,
      protocolVersion: AGENT_PROTOCOL_VERSION,
      auth: { kind: "enrolment", token: TOKEN },
      labels: { region: "test" },
    });

    connection.send(ready({ serverOffsetMs: HOUR, heartbeatIntervalMs: 100 }));
    await agent.log.waitFor(new RegExp(`connected to ${bed.gateway.server} as agent ${AGENT_ID}`));
    await agent.log.waitFor(/saved the agent credential/);

    expect((await stat(bed.config.path)).mode & 0o777).toBe(0o600);
    expect((await stat(dirname(bed.config.path))).mode & 0o777).toBe(0o700);
    expect(JSON.parse(await readFile(bed.config.path, "utf8")).servers[bed.gateway.server]).toEqual({
      agentId: AGENT_ID,
      secret: SECRET,
    });
    const heartbeat = await connection.waitFor((m) => m.type === "heartbeat");
    // The agent's own clock, not its estimate of the server's: the server echoes it back (§3).
    expect(Math.abs((heartbeat.payload as { sentAt: number }).sentAt - Date.now())).toBeLessThan(1_000);
    expect(agent.log.lines.join("\n")).not.toContain(SECRET);
  });

  it("§4–§6 runs an assigned 2 s shard: started, snapshots seq 0..n in server time, finished with lastSeq n", async () => {
    bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    await connection.waitFor((m) => m.type === "hello");
    connection.send(ready({ serverOffsetMs: HOUR }));
    // startAt is in server time, an hour ahead: an agent that ignored the offset would wait an hour.
    const startAt = Date.now() + HOUR + 300;
    connection.send({ type: "run-assignment", payload: assignment(bed.target.url, { durationSec: 2, startAt }) });

    const finished = await connection.waitFor(isStatus("finished"));
    const snapshots = connection.received.filter(isSnapshot).map((m) => m.payload);
    expect(snapshots.map((s) => s.seq)).toEqual([0, 1]);
    expect(finished.payload.lastSeq).toBe(1);
    expect(snapshots.map((s) => s.intervalStart)).toEqual([startAt, startAt + 1_000]);
    expect(snapshots.every((s) => s.counters.messagesReceived > 0)).toBe(true);
    const order = connection.received.map((m) => (m.type === "shard-status" ? m.payload.state : m.type));
    expect(order.filter((type) => type !== "heartbeat" && type !== "hello")).toEqual([
      "started",
      "snapshot",
      "snapshot",
      "finished",
    ]);
    expect(connection.invalid).toEqual([]);
  });

  it("§3 refines the clock offset from heartbeat echoes, so a one-way delay in ready cannot shift the start", async () => {
    bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    await connection.waitFor((m) => m.type === "hello");
    connection.onMessage((m) => {
      if (m.type === "heartbeat")
        connection.send({ type: "heartbeat", payload: { sentAt: Date.now() + HOUR, echo: m.payload.sentAt } });
    });
    // ready claims the server is 5 s further ahead than it is (as a 5 s one-way delay would).
    connection.send(ready({ serverOffsetMs: HOUR + 5_000, heartbeatIntervalMs: 100 }));
    await connection.waitFor(
      (m) => m.type === "heartbeat" && connection.received.filter((h) => h.type === "heartbeat").length >= 3,
    );

    // With the ready estimate this run would look 4.7 s old, already over: it would never start.
    connection.send({
      type: "run-assignment",
      payload: assignment(bed.target.url, { durationSec: 2, startAt: Date.now() + HOUR + 300 }),
    });
    const finished = await connection.waitFor(isStatus("finished"));
    expect(snapshotSeqs(connection.received)).toEqual([0, 1]);
    expect(finished.payload.lastSeq).toBe(1);
  });

  it("§1 ignores malformed and unknown frames from the server and keeps working", async () => {
    const agent = bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    await connection.waitFor((m) => m.type === "hello");
    connection.send(ready());
    await agent.log.waitFor(/connected to/);

    connection.sendRaw("not json at all");
    connection.sendRaw(Buffer.from([0, 1, 2, 3]));
    connection.sendRaw(JSON.stringify({ v: 2, type: "run-stop", payload: {} }));
    connection.sendRaw(JSON.stringify({ v: 1, type: "teleport", payload: {} }));
    connection.sendRaw(JSON.stringify({ v: 1, type: "run-assignment", payload: { runId: "not-a-uuid" } }));
    connection.send(ready());
    connection.send({
      type: "run-assignment",
      payload: assignment(bed.target.url, { durationSec: 1, startAt: Date.now() }),
    });

    await connection.waitFor(isStatus("finished"));
    expect(snapshotSeqs(connection.received)).toEqual([0]);
    // The log comes over the agent's stdout, which may be read after its status arrived over the socket.
    await expect.poll(() => agent.log.lines.filter((line) => line.startsWith("warn ignored")).length).toBe(6);
  });

  it("§7 run-stop aborts the shard, flushes the partial interval and reports finished", async () => {
    bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    await connection.waitFor((m) => m.type === "hello");
    connection.send(ready());
    const run = assignment(bed.target.url, { durationSec: 60, startAt: Date.now() });
    connection.send({ type: "run-assignment", payload: run });
    await connection.waitFor((m) => isSnapshot(m) && m.payload.seq === 0);
    connection.send({ type: "run-stop", payload: { runId: run.runId, reason: "aborted by user" } });

    const finished = await connection.waitFor(isStatus("finished"));
    const snapshots = connection.received.filter(isSnapshot).map((m) => m.payload);
    expect(finished.payload.lastSeq).toBe(snapshots.at(-1)!.seq);
    expect(snapshots.at(-1)!.intervalMs).toBeLessThan(1_000);
  });

  it("§8 on shutdown finishes the running shard, then closes with 1000", async () => {
    const agent = bed.startAgent();
    const connection = await bed.gateway.nextConnection();
    await connection.waitFor((m) => m.type === "hello");
    connection.send(ready());
    connection.send({
      type: "run-assignment",
      payload: assignment(bed.target.url, { durationSec: 60, startAt: Date.now() }),
    });
    await connection.waitFor((m) => isSnapshot(m) && m.payload.seq === 0);

    agent.stop();
    expect(await connection.closed).toEqual({ code: 1000, reason: "agent shutting down" });
    expect(await agent.exit).toEqual({ kind: "stopped" });
    expect(connection.received.filter(isStatus("finished"))).toHaveLength(1);
  });
});
