import { describe, expect, it } from "vitest";
import { cloneName, exportFileName, formatOfFile, parsePlanText, planTextTooLarge, planToText } from "./plan-text";

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
    const multiline = parsePlanText(
      '{\n  "load": {\n    "clients": 5,\n    "durationSec": ,\n    "rampUpSec": 0\n  }\n}',
      "json",
    );
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

describe("a text too large to be a plan", () => {
  it("is refused before it is parsed, saying how large it is and what the API takes", () => {
    const huge = `name: x\nslos:\n${"  - metric: rtt-p99-ms\n    below: 50\n".repeat(70_000)}`;
    expect(planTextTooLarge(huge)).toBe(
      "This plan is 2.5 MiB; the API takes at most 1 MiB, so it is not checked or saved. A plan has at most 20 SLOs and 32 session steps: cut it down.",
    );
    const parsed = parsePlanText(huge, "yaml");
    expect(parsed.ok ? "" : parsed.error).toMatch(/^This plan is 2\.5 MiB/);
    expect(planTextTooLarge("name: x\n")).toBeNull();
    // Near the limit the bytes are counted, not the characters: 400,000 "é" are 800,000 bytes, under 1 MiB.
    expect(planTextTooLarge("é".repeat(400_000))).toBeNull();
    expect(planTextTooLarge("é".repeat(600_000))).toMatch(/^This plan is 1\.1 MiB/);
  });
});
