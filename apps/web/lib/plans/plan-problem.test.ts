import { describe, expect, it } from "vitest";
import { draftFromInput, problemMessage } from "./plan-draft";
import { problemLabel } from "./plan-problem";

const draft = draftFromInput({
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:1" },
  scenario: { kind: "ping-pong", intervalMs: 100, heartbeat: { intervalMs: 1000 } },
  load: { clients: 10, durationSec: 10 },
  slos: [
    { metric: "rtt-p99-ms", below: 50 },
    { metric: "error-rate", below: 0.01 },
  ],
});

describe("problemLabel", () => {
  it("names a field by the labels the form shows, never by its schema path", () => {
    expect(problemLabel("load.clients", draft)).toBe("Load › Clients");
    expect(problemLabel("scenario.intervalMs", draft)).toBe("Scenario › Ping interval");
    expect(problemLabel("target.url", draft)).toBe("Target › Target URL");
    expect(problemLabel("slos.1.below", draft)).toBe("SLOs › SLO 2 › Must stay below");
    expect(problemLabel("scenario.kind", draft)).toBe("Scenario › Scenario type");
    expect(problemLabel("form", draft)).toBe("");
  });
});

describe("problemMessage", () => {
  it("says what to do instead of zod's type words, and names SLO metrics", () => {
    expect(problemMessage("load.clients", "Invalid input: expected number, received string")).toBe("enter a number");
    expect(problemMessage("slos.0.metric", "must be one of rtt-p50-ms, rtt-p99-ms, …")).toBe(
      "choose a metric from the list",
    );
    expect(problemMessage("target.frames", 'Invalid option: expected one of "text"|"binary"')).toBe(
      "choose one of text, binary",
    );
    expect(
      problemMessage("slos.0.metric", "rtt-p99-ms: login-storm plans measure connect and login times, not round trips"),
    ).toBe("Round trip p99: login-storm plans measure connect and login times, not round trips");
  });
});
