import { describe, expect, it } from "vitest";
import { PlanSpec } from "./plan";

const plan = (scenario: unknown, framing?: unknown) => ({
  name: "tcp",
  target: { protocol: "tcp", host: "127.0.0.1", port: 7071, ...(framing ? { framing } : {}) },
  scenario,
  load: { clients: 1, durationSec: 5 },
});

describe("a TCP target's framing", () => {
  it("is not asked of a script scenario, which reads the socket itself", () => {
    expect(PlanSpec.safeParse(plan({ kind: "script", script: { sha256: "a".repeat(64) } })).success).toBe(true);
  });

  it("is asked of every other scenario, on the framing field, saying why", () => {
    const result = PlanSpec.safeParse(plan({ kind: "ping-pong", intervalMs: 100, messageBytes: 64 }));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((issue) => [issue.path.join("."), issue.message])).toEqual([
      ["target.framing", expect.stringMatching(/^give the framing: how messages are cut out of the TCP stream/)],
    ]);
    expect(
      PlanSpec.safeParse(
        plan({ kind: "ping-pong", intervalMs: 100, messageBytes: 64 }, { kind: "length-prefix", headerBytes: 2 }),
      ).success,
    ).toBe(true);
  });
});
