import { describe, expect, it } from "vitest";
import { ERROR_SAMPLE_KINDS, ERROR_SAMPLES_PER_SNAPSHOT, ErrorSample } from "@throng/protocol/error-samples";
import { createErrorSampleGate, createErrorSampler } from "./error-samples";
import { createSnapshotBuilder } from "./snapshot-builder";

const NO_HEALTH = { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} };
const drain = (sampler: { take(): ErrorSample[] | undefined }) => {
  const all: ErrorSample[] = [];
  for (let part = sampler.take(); part; part = sampler.take()) all.push(...part);
  return all;
};

describe("error samples (PROTOCOL.md §5.2)", () => {
  it("keeps each distinct kind, message and bytes once, with when, which client and the first 256 bytes as hex", () => {
    const sampler = createErrorSampler({ now: () => 1_700_000_000_123.4 });
    const reply = Buffer.from("-ERR wrong\r\n");
    for (let client = 0; client < 50; client += 1) sampler.offer("bad-reply", client, "bad", reply);
    sampler.offer("bad-reply", 7, "bad", Buffer.from("+OK\r\n"));
    sampler.offer("refused", 3, "connect ECONNREFUSED 127.0.0.1:9", undefined);
    sampler.offer("refused", 4, "connect ECONNREFUSED 127.0.0.1:9", undefined);
    sampler.offer("protocol", undefined, undefined, Buffer.alloc(1000, 0xab));
    const samples = drain(sampler);
    expect(samples).toEqual([
      {
        kind: "bad-reply",
        message: "bad",
        at: 1_700_000_000_123,
        client: 0,
        bytes: { length: 12, hex: reply.toString("hex") },
      },
      { kind: "bad-reply", message: "bad", at: 1_700_000_000_123, client: 7, bytes: { length: 5, hex: "2b4f4b0d0a" } },
      { kind: "refused", message: "connect ECONNREFUSED 127.0.0.1:9", at: 1_700_000_000_123, client: 3 },
      { kind: "protocol", message: "protocol", at: 1_700_000_000_123, bytes: { length: 1000, hex: "ab".repeat(256) } },
    ]);
    for (const sample of samples) expect(ErrorSample.parse(sample)).toEqual(sample);
    expect(sampler.take()).toBeUndefined();
  });

  it("respects its bound per kind and on kinds, and sends at most ERROR_SAMPLES_PER_SNAPSHOT a second, the rest later", () => {
    const sampler = createErrorSampler({ now: () => 0, perKind: 30 });
    for (let i = 0; i < 500; i += 1) sampler.offer("timeout", i, String(i), undefined);
    for (let i = 0; i < ERROR_SAMPLE_KINDS + 5; i += 1) sampler.offer(`kind-${i}`, i, "x", undefined);
    const first = sampler.take()!;
    expect(first).toHaveLength(ERROR_SAMPLES_PER_SNAPSHOT);
    const all = [...first, ...drain(sampler)];
    expect(all.filter((s) => s.kind === "timeout").map((s) => s.message)).toEqual(
      Array.from({ length: 30 }, (_, i) => String(i)),
    );
    expect(new Set(all.map((s) => s.kind)).size).toBe(ERROR_SAMPLE_KINDS);
  });

  it("takes the shard's secret values out of a sample's message and bytes before it leaves the engine", () => {
    const sampler = createErrorSampler({ now: () => 0, secrets: { PASS: "hunter2" } });
    sampler.offer("session-rejected", 1, "AUTH hunter2 refused", Buffer.from("-ERR hunter2 is wrong"));
    const [sample] = drain(sampler);
    expect(sample!.message).toBe("AUTH {{secrets.PASS}} refused");
    expect(Buffer.from(sample!.bytes!.hex, "hex").toString()).toBe("-ERR ******* is wrong");
  });

  it("the agent's gate sends an error two engines saw once, within the same bound per kind", () => {
    const gate = createErrorSampleGate(3);
    const sample = (client: number, message: string): ErrorSample => ({ kind: "refused", message, at: 1, client });
    const out = gate.pass([
      [sample(0, "a"), sample(1, "b")],
      [sample(2, "a"), sample(3, "c"), sample(4, "d")],
    ]);
    expect(out?.map((s) => [s.client, s.message])).toEqual([
      [0, "a"],
      [1, "b"],
      [3, "c"],
    ]);
    expect(gate.pass([[sample(5, "e")]])).toBeUndefined();
  });

  it("the snapshot carries the samples the builder's errors offered, in the second they were first seen", () => {
    const builder = createSnapshotBuilder({
      runId: crypto.randomUUID(),
      health: NO_HEALTH,
      errorSamples: createErrorSampler({ now: () => 5 }),
    });
    builder.metrics.connectionFailed("refused", 2, "connect ECONNREFUSED");
    builder.metrics.error("bad-reply", 3, "bad", Buffer.from("x"));
    const interval = { seq: 0, intervalStart: 0, intervalMs: 1000, clients: 4 };
    expect(builder.take(interval).errorSamples?.map((s) => s.kind)).toEqual(["refused", "bad-reply"]);
    builder.metrics.error("bad-reply", 3, "bad", Buffer.from("x"));
    expect(builder.take({ ...interval, seq: 1 }).errorSamples).toBeUndefined();
  });
});
