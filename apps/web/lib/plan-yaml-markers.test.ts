import { describe, expect, it } from "vitest";
import { planToText } from "./plan-text";
import { planYamlMarkers } from "./plan-yaml-markers";

const plan = {
  name: "Lobby",
  target: { protocol: "websocket", url: "ws://127.0.0.1:1" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 10, durationSec: 30 },
  slos: [{ metric: "rtt-p99-ms", below: 50 }],
};
const yaml = planToText(plan, "yaml");
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((line) => line.includes(needle)) + 1;

describe("planYamlMarkers", () => {
  it("has nothing to say about a valid plan", () => {
    expect(planYamlMarkers(yaml)).toEqual([]);
  });

  it("puts a schema problem on the value's line in the form's words", () => {
    const text = yaml.replace("clients: 10", "clients: 0");
    const [marker, ...rest] = planYamlMarkers(text);
    expect(rest).toEqual([]);
    expect(marker).toMatchObject({ path: "load.clients", line: lineOf(text, "clients: 0"), message: "Load › Clients: must be at least 1" });
    expect(text.slice(marker!.from, marker!.to)).toBe("0");
  });

  it("says 'enter a number' for text in a number, and names SLO fields by their labels", () => {
    const text = yaml.replace("intervalMs: 100", "intervalMs: fast").replace("below: 50", "below: soon");
    const markers = planYamlMarkers(text);
    expect(markers.map((m) => [m.line, m.message])).toEqual([
      [lineOf(text, "intervalMs: fast"), "Scenario › Ping interval: enter a number"],
      [lineOf(text, "below: soon"), "SLOs › SLO 1 › Must stay below: enter a number"],
    ]);
  });

  it("marks the parent's key where a required key is missing", () => {
    const text = yaml.replace(/ {2}durationSec: 30\n/, "");
    const [marker] = planYamlMarkers(text);
    expect(marker).toMatchObject({ path: "load.durationSec", line: lineOf(text, "load:"), message: "Load › Duration: fill this in" });
    expect(text.slice(marker!.from, marker!.to)).toBe("load");
  });

  it("shows a YAML syntax error at its own line", () => {
    const text = yaml.replace("clients: 10", "clients: [10");
    const markers = planYamlMarkers(text);
    expect(markers.length).toBeGreaterThan(0);
    expect(markers[0]!.path).toBe("form");
    expect(markers[0]!.message).toMatch(/^Not valid YAML: /);
    expect(markers[0]!.line).toBeGreaterThanOrEqual(lineOf(text, "clients: [10"));
  });

  it("says so for an empty document and for one that is not an object", () => {
    expect(planYamlMarkers("  \n")[0]!.message).toMatch(/empty/);
    expect(planYamlMarkers("- a\n- b\n")[0]).toMatchObject({ line: 1, message: expect.stringMatching(/not an object/) });
  });
});
