import { describe, expect, it } from "vitest";
import { cloneName, exportFileName, formatOfFile, parsePlanText, planToText } from "./plan-text";

const plan = {
  name: "Lobby",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients: 100, durationSec: 30, rampUpSec: 0 },
};

describe("plan text", () => {
  it.each(["json", "yaml"] as const)("round-trips a plan through %s", (format) => {
    const parsed = parsePlanText(planToText(plan, format), format);
    expect(parsed).toEqual({ ok: true, value: plan });
  });

  it("writes YAML a person would write", () => {
    expect(planToText(plan, "yaml")).toContain("target:\n  protocol: websocket\n  url: ws://127.0.0.1:7070/ws\n");
  });

  it("says where a document is broken, and refuses non-objects", () => {
    const broken = parsePlanText("name: [unclosed", "yaml");
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.error).toMatch(/^Not valid YAML: .*line 1/);
    const json = parsePlanText("{ nope", "json");
    expect(!json.ok && json.error).toMatch(/^Not valid JSON/);
    expect(parsePlanText("- a\n- b", "yaml").ok).toBe(false);
    expect(parsePlanText("  ", "yaml").ok).toBe(false);
  });

  it("keeps V8's JSON reason without the cut of source it quotes", () => {
    const broken = parsePlanText('{ "load": { "durationSec": , "clients": 5 } }', "json");
    expect(!broken.ok && broken.error).toBe("Not valid JSON: Unexpected token ','");
    // Chromium's cut of the source keeps its line breaks: none of it may stay on the first line either.
    const multiline = parsePlanText('{\n  "load": {\n    "clients": 5,\n    "durationSec": ,\n    "rampUpSec": 0\n  }\n}', "json");
    expect(!multiline.ok && multiline.error).toBe("Not valid JSON: Unexpected token ','");
  });

  it("chooses the format from the file name", () => {
    expect(formatOfFile("lobby.plan.JSON")).toBe("json");
    expect(formatOfFile("lobby.yml")).toBe("yaml");
  });

  it("names exported files after the plan", () => {
    expect(exportFileName("Lobby smoke test!", "yaml")).toBe("lobby-smoke-test.plan.yaml");
    expect(exportFileName("***", "json")).toBe("plan.plan.json");
  });

  it("gives a clone a name not already taken", () => {
    expect(cloneName("Lobby", [])).toBe("Copy of Lobby");
    expect(cloneName("Lobby", ["Copy of Lobby", "Copy of Lobby (2)"])).toBe("Copy of Lobby (3)");
  });
});
