import { describe, expect, it } from "vitest";
import type { AgentCapabilities } from "./agent";
import { capabilityRefusal, capabilityRefusals, capabilityWords } from "./agent-capabilities";
import { PlanSpec, type PlanSpecInput } from "./plan";

const plan = (scenario: PlanSpecInput["scenario"], url = "ws://127.0.0.1:7070/") =>
  PlanSpec.parse({ name: "p", target: { protocol: "websocket", url }, scenario, load: { clients: 2, durationSec: 5 } });
const pingPong = plan({ kind: "ping-pong", intervalMs: 200, messageBytes: 64 });
const hash = "ab".repeat(32);
const script = plan({ kind: "script", script: { sha256: hash } });
const caps = (scripts: AgentCapabilities["scripts"], allowTargets: string[] = []): AgentCapabilities => ({
  scripts,
  allowTargets,
});

describe("whether an agent's owner lets it run a plan, before any run exists", () => {
  it("an agent that did not say what it allows is left to decide at the start", () => {
    expect(capabilityRefusal(undefined, script)).toBeNull();
  });

  it("scripts: none refuses a script plan naming --allow-scripts; any runs it; a hash list runs only its bundles", () => {
    expect(capabilityRefusal(caps("none"), pingPong)).toBeNull();
    expect(capabilityRefusal(caps("none"), script)).toBe("does not run scripts (start it with --allow-scripts)");
    expect(capabilityRefusal(caps("any"), script)).toBeNull();
    expect(capabilityRefusal(caps({ sha256: [hash] }), script)).toBeNull();
    expect(capabilityRefusal(caps({ sha256: ["cd".repeat(32)] }), script)).toMatch(
      /^does not run script bundle abababababab… \(add it to --allow-scripts/,
    );
  });

  it("an --allow-target list refuses a target, or a session's http step, off it", () => {
    expect(capabilityRefusal(caps("none", ["127.0.0.1:7070"]), pingPong)).toBeNull();
    expect(capabilityRefusal(caps("none", ["127.0.0.1:9000"]), pingPong)).toBe(
      "loads only 127.0.0.1:9000 (its --allow-target list), not 127.0.0.1:7070",
    );
    const withLogin = plan({
      kind: "ping-pong",
      intervalMs: 200,
      messageBytes: 64,
      session: [{ kind: "http", method: "POST", url: "http://auth.example.org/login" }],
    });
    expect(capabilityRefusal(caps("none", ["127.0.0.1"]), withLogin)).toBe(
      "loads only 127.0.0.1 (its --allow-target list), not scenario.session[0]'s http step to auth.example.org:80",
    );
  });

  it("names each refusing agent by its host name, and says what each allows in words", () => {
    const agents = [
      { hostname: "rig-7", capabilities: caps("none") },
      { hostname: "rig-8", capabilities: caps("any") },
      { hostname: "rig-9" },
    ];
    expect(capabilityRefusals(agents, script)).toBe("rig-7 does not run scripts (start it with --allow-scripts)");
    expect(capabilityWords(caps({ sha256: [hash] }, ["*.example.org"]))).toEqual({
      scripts: "1 bundle",
      targets: "*.example.org",
    });
    expect(capabilityWords(caps("none"))).toEqual({ scripts: "no", targets: "any" });
  });
});
