import { describe, expect, it } from "vitest";
import type { PlanSpecInput } from "./plan";
import { planIssues } from "./plan-spec.test-support";

const base = (
  over: { scenario?: Record<string, unknown>; target?: Record<string, unknown>; shape?: Record<string, unknown> } = {},
) =>
  ({
    name: "p",
    target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws", ...over.target },
    scenario: { kind: "login-storm", ...over.scenario },
    load: { clients: 10, durationSec: 5, ...(over.shape ? { shape: over.shape } : {}) },
  }) as PlanSpecInput;

const match = {
  kind: "http",
  method: "POST",
  url: "http://127.0.0.1:8080/match",
  body: { format: "json", body: '{"client":{{client}}}' },
  capture: [{ name: "ticket", from: { json: "ticket" } }],
};

describe("http steps, reconnects and storms in the plan schema", () => {
  it("takes http steps first, with their captures in the target's url and headers", () => {
    expect(
      planIssues(
        base({
          scenario: { session: [match] },
          target: {
            url: "ws://127.0.0.1:7070/game?ticket={{vars.ticket}}",
            headers: { Authorization: "Bearer {{vars.ticket}}" },
          },
        }),
      ),
    ).toEqual([]);
  });

  it("refuses an http step after a socket step, naming where it must go", () => {
    expect(planIssues(base({ scenario: { session: [{ kind: "send", message: { body: "hi" } }, match] } }))).toEqual([
      "scenario.session.1.kind: an http step runs before the client's socket opens: put it before step 0 (send), with every other http step first",
    ]);
  });

  it("refuses a target variable no http step captures, a placeholder in a host, and a GET with a body", () => {
    expect(
      planIssues(
        base({
          scenario: {
            session: [
              { kind: "send", message: { body: "LOGIN" } },
              { kind: "expect", reply: { regex: "ok" }, capture: [{ name: "t", from: { regex: "(\\w+)" } }] },
            ],
          },
          target: { url: "ws://127.0.0.1:7070/?t={{vars.t}}" },
        }),
      ),
    ).toEqual([
      "target.url: {{vars.t}} must be captured by an http step: the target is resolved before the socket opens, so only http steps' captures exist then",
    ]);
    expect(planIssues(base({ scenario: { session: [match] }, target: { url: "ws://{{vars.ticket}}:7070/" } }))).toEqual(
      ["target.url: write the host and port out: placeholders may only come after them (path, query)"],
    );
    expect(planIssues(base({ scenario: { session: [{ ...match, url: "http://{{vars.host}}/match" }] } }))[0]).toMatch(
      /^scenario\.session\.0\.url: must be an http:\/\/ or https:\/\/ URL whose host and port are written out/,
    );
    expect(planIssues(base({ scenario: { session: [{ ...match, method: "GET" }] } }))).toEqual([
      "scenario.session.0.body: a GET request has no body: set method POST or PUT, or leave body out",
    ]);
  });

  it("refuses a reconnect storm whose clients never reconnect, naming the field", () => {
    const storm = { kind: "reconnect-storm", everySec: 1, dropPercent: 50 };
    expect(planIssues(base({ shape: storm }))).toEqual([
      'scenario.reconnect.policy: a reconnect storm drops clients for them to come back: set scenario.reconnect.policy to "immediately" or "backoff"',
    ]);
    expect(
      planIssues(
        base({
          shape: storm,
          scenario: { reconnect: { policy: "backoff", maxAttempts: 5, backoff: { initialMs: 100, maxMs: 2000 } } },
        }),
      ),
    ).toEqual([]);
  });
});
