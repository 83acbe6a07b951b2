import { describe, expect, it } from "vitest";
import { KCP_MODES, kcpSettings } from "./kcp-modes";
import { planIssues } from "./plan-spec.test-support";

// target { protocol: kcp } in the plan schema, and the tuning a KCP connection gets from it (kcp-modes.ts).

function plan(target: object) {
  return {
    name: "kcp",
    target: { protocol: "kcp", host: "127.0.0.1", port: 7400, ...target },
    scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
    load: { clients: 1, durationSec: 1 },
  };
}

describe("a KCP target in a plan", () => {
  it("takes host and port alone (message mode, mode fast), or every knob", () => {
    expect(planIssues(plan({}))).toEqual([]);
    const full = plan({
      mode: "fast3",
      nodelay: false,
      intervalMs: 15,
      resend: 0,
      nc: false,
      mtu: 1200,
      sendWindow: 128,
      receiveWindow: 512,
      ackNoDelay: true,
      stream: true,
      framing: { kind: "length-prefix", headerBytes: 2 },
      conv: 4_294_967_295,
      sourceAddresses: ["127.0.0.2"],
    });
    expect(planIssues(full)).toEqual([]);
  });

  it("asks stream mode for a framing, and a framing for stream mode, saying what to do", () => {
    expect(planIssues(plan({ stream: true }))).toEqual([
      "target.framing: stream mode cuts messages out of a byte stream: give a framing (length-prefix, delimiter or length-field), or leave stream out for message mode",
    ]);
    expect(planIssues(plan({ framing: { kind: "delimiter" } }))).toEqual([
      "target.framing: a framing is for stream mode: set stream: true, or leave framing out (in message mode one KCP message is one message)",
    ]);
  });

  it("refuses values kcp-go would not take, naming the field and its range", () => {
    expect(planIssues(plan({ mode: "turbo" }))).toEqual(["target.mode: must be normal, fast, fast2 or fast3"]);
    expect(planIssues(plan({ mtu: 1500 }))).toEqual([
      "target.mtu: must be at most 1472 bytes (kcp-go's limit: a 1500-byte packet less its IP and UDP headers)",
    ]);
    expect(planIssues(plan({ intervalMs: 5 }))).toEqual(["target.intervalMs: must be at least 10 ms"]);
    expect(planIssues(plan({ receiveWindow: 70_000 }))).toEqual([
      "target.receiveWindow: must be at most 65535 segments (the header's wnd is 16 bits)",
    ]);
    expect(planIssues(plan({ conv: 2 ** 32 }))).toEqual(["target.conv: must be 0 to 4294967295 (32 bits)"]);
  });
});

describe("KCP tuning", () => {
  it("has kcptun's presets of (nodelay, interval, resend, nc)", () => {
    const tuple = (name: keyof typeof KCP_MODES) => [
      Number(KCP_MODES[name].nodelay),
      KCP_MODES[name].intervalMs,
      KCP_MODES[name].resend,
      Number(KCP_MODES[name].nc),
    ];
    expect(tuple("normal")).toEqual([0, 40, 2, 1]);
    expect(tuple("fast")).toEqual([0, 30, 2, 1]);
    expect(tuple("fast2")).toEqual([1, 20, 2, 1]);
    expect(tuple("fast3")).toEqual([1, 10, 2, 1]);
  });

  it("starts from the mode (fast by default), replaces what the plan gives, and takes kcp-go's defaults for the rest", () => {
    expect(kcpSettings({})).toEqual({
      mode: "fast",
      nodelay: false,
      intervalMs: 30,
      resend: 2,
      nc: true,
      mtu: 1400,
      sendWindow: 32,
      receiveWindow: 32,
      ackNoDelay: false,
      stream: false,
      conv: undefined,
    });
    expect(kcpSettings({ mode: "fast3", resend: 0, nc: false })).toMatchObject({
      nodelay: true,
      intervalMs: 10,
      resend: 0,
      nc: false,
    });
  });
});
