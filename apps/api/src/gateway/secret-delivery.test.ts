import { describe, expect, it } from "vitest";
import pino from "pino";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { quietSnapshot } from "@throng/protocol/metric-snapshot.test-support";
import type { ServerToAgentMessage } from "@throng/protocol/agent";
import { createSecretDelivery } from "./secret-delivery";

const runId = crypto.randomUUID();
const snapshot = (message: string, hex: string): MetricSnapshot =>
  quietSnapshot({
    runId,
    intervalStart: 1,
    counters: { errors: 1 },
    errorSamples: [{ kind: "session-rejected", message, at: 1, client: 0, bytes: { length: hex.length / 2, hex } }],
  });

describe("secret delivery (agent/PROTOCOL.md §14, §5.2)", () => {
  it("takes the values a run's assignment carried out of its snapshots' error samples, as an older agent would not", async () => {
    const delivery = createSecretDelivery(
      { valuesFor: async () => ({ values: { WORD: "sesame" }, unavailable: [] }) },
      pino({ level: "silent" }),
    );
    const assignment = { type: "run-assignment", payload: { runId, plan: {} } } as unknown as ServerToAgentMessage;
    const unmasked = snapshot("AUTH sesame refused", Buffer.from("-ERR sesame").toString("hex"));
    expect(delivery.redactSnapshot(unmasked)).toBe(unmasked); // no assignment on this socket yet: nothing to take out
    await delivery.fill("org", assignment);
    const [sample] = delivery.redactSnapshot(unmasked).errorSamples!;
    expect(sample!.message).toBe("AUTH {{secrets.WORD}} refused");
    expect(Buffer.from(sample!.bytes!.hex, "hex").toString()).toBe("-ERR ******");
  });
});
