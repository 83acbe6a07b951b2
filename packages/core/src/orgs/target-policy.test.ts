import { describe, expect, it } from "vitest";
import type { ThrongError } from "@throng/protocol/errors";
import { OrgSettings } from "@throng/protocol/orgs";
import { PlanSpec } from "@throng/protocol/plan";
import { checkPlanAgainstSettings, httpStepAddress, ruleMatches, targetAddress } from "./target-policy";

const plan = (url: string, clients = 10, durationSec = 10) =>
  PlanSpec.parse({
    name: "p",
    target: { protocol: "websocket", url },
    scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
    load: { clients, durationSec },
  });

describe("target allow-list and caps", () => {
  it("reads host and default ports from target URLs", () => {
    expect(targetAddress("ws://Game.Example.com/ws")).toEqual({ host: "game.example.com", port: 80 });
    expect(targetAddress("wss://game.example.com/ws")).toEqual({ host: "game.example.com", port: 443 });
    expect(targetAddress("ws://[::1]:7070/ws")).toEqual({ host: "::1", port: 7070 });
  });

  it("matches host, host:port, wildcard subdomains and IPv6", () => {
    const t = { host: "eu.game.example.com", port: 7070 };
    expect(ruleMatches("eu.game.example.com", t)).toBe(true);
    expect(ruleMatches("eu.game.example.com:7070", t)).toBe(true);
    expect(ruleMatches("eu.game.example.com:7071", t)).toBe(false);
    expect(ruleMatches("*.example.com", t)).toBe(true);
    expect(ruleMatches("*.example.org", t)).toBe(false);
    expect(ruleMatches("[::1]:7070", { host: "::1", port: 7070 })).toBe(true);
  });

  it("refuses a target off the list and plans over the caps, naming the field", () => {
    const settings = OrgSettings.parse({ targetAllowList: ["127.0.0.1:7070"], maxClients: 100, maxDurationSec: 60 });
    expect(() => checkPlanAgainstSettings(plan("ws://127.0.0.1:7070/ws"), settings)).not.toThrow();
    const refuse = (p: PlanSpec) => {
      try {
        checkPlanAgainstSettings(p, settings);
      } catch (error) {
        return (error as ThrongError).fields?.map((f) => f.path);
      }
      return [];
    };
    expect(refuse(plan("ws://10.0.0.1:7070/ws"))).toEqual(["target.url"]);
    expect(refuse(plan("ws://127.0.0.1:7070/ws", 101, 61))).toEqual(["load.clients", "load.durationSec"]);
  });

  it("holds every session http step's URL to the list as the target, by host and port as written, naming the step", () => {
    const settings = OrgSettings.parse({ targetAllowList: ["127.0.0.1:7070", "match.example.com:8080"] });
    const withSteps = (...urls: string[]) =>
      PlanSpec.parse({
        name: "p",
        target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
        scenario: {
          kind: "echo-flood",
          messageBytes: 8,
          session: [...urls.map((url) => ({ kind: "http", url })), { kind: "send", message: { body: "hi" } }],
        },
        load: { clients: 1, durationSec: 1 },
      });
    expect(() =>
      checkPlanAgainstSettings(
        withSteps("http://match.example.com:8080/match?client={{client}}", "http://127.0.0.1:7070/login"),
        settings,
      ),
    ).not.toThrow();
    let refused: ThrongError | undefined;
    try {
      // The second step's host is allowed but on another port (https:// without one is 443).
      checkPlanAgainstSettings(
        withSteps(
          "http://match.example.com:8080/ok",
          "https://match.example.com/ticket/{{client}}",
          "http://10.0.0.9/x",
        ),
        settings,
      );
    } catch (error) {
      refused = error as ThrongError;
    }
    expect(refused?.code).toBe("forbidden");
    expect(refused?.fields).toEqual([
      {
        path: "scenario.session.1.url",
        message:
          "match.example.com:443 is not on this organisation's target allow-list (127.0.0.1:7070, match.example.com:8080); an admin can add it under Settings",
      },
      {
        path: "scenario.session.2.url",
        message:
          "10.0.0.9:80 is not on this organisation's target allow-list (127.0.0.1:7070, match.example.com:8080); an admin can add it under Settings",
      },
    ]);
    expect(refused?.message).toContain("scenario.session.1.url: match.example.com:443 is not on");
    expect(httpStepAddress("http://[::1]:9000/m?t={{vars.token}}")).toEqual({ host: "::1", port: 9000 });
  });

  it("allows any target when the list is empty", () => {
    expect(() => checkPlanAgainstSettings(plan("ws://anything:1/x"), OrgSettings.parse({}))).not.toThrow();
  });
});
