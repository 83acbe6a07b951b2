import { describe, expect, it } from "vitest";
import { planToText } from "./plan-text";
import { planTextMarkers } from "./plan-text-markers";

const plan = {
  name: "Lobby",
  target: { protocol: "websocket", url: "ws://127.0.0.1:1" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 10, durationSec: 30 },
  slos: [{ metric: "rtt-p99-ms", below: 50 }],
};
const yaml = planToText(plan, "yaml");
const json = planToText(plan, "json");
const planYamlMarkers = (text: string) => planTextMarkers(text, "yaml");
const planJsonMarkers = (text: string) => planTextMarkers(text, "json");
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((line) => line.includes(needle)) + 1;

describe.each([
  {
    format: "yaml",
    text: yaml,
    valid: "clients: 10",
    invalid: "clients: 0",
    noDuration: yaml.replace(/ {2}durationSec: 30\n/, ""),
    parentKey: "load:",
    parentText: "load",
  },
  {
    format: "json",
    text: json,
    valid: '"clients": 10',
    invalid: '"clients": 0',
    noDuration: json.replace(/,\n\s*"durationSec": 30/, ""),
    parentKey: '"load"',
    // Quotes and all: the key as it stands in the text.
    parentText: '"load"',
  },
] as const)("planTextMarkers on $format", ({ format, text, valid, invalid, noDuration, parentKey, parentText }) => {
  it("has nothing to say about a valid plan", () => {
    expect(planTextMarkers(text, format)).toEqual([]);
  });

  it("puts a schema problem on the value, in its line, in the form's words", () => {
    const wrong = text.replace(valid, invalid);
    const [marker, ...rest] = planTextMarkers(wrong, format);
    expect(rest).toEqual([]);
    expect(marker).toMatchObject({
      path: "load.clients",
      line: lineOf(wrong, invalid),
      message: "Load › Clients: must be at least 1",
    });
    expect(wrong.slice(marker!.from, marker!.to)).toBe("0");
  });

  it("marks the parent's key where a required key is missing", () => {
    const [marker] = planTextMarkers(noDuration, format);
    expect(marker).toMatchObject({
      path: "load.durationSec",
      line: lineOf(noDuration, parentKey),
      message: "Load › Duration: fill this in",
    });
    expect(noDuration.slice(marker!.from, marker!.to)).toBe(parentText);
  });
});

describe("planTextMarkers on YAML", () => {
  it("says 'enter a number' for text in a number, and names SLO fields by their labels", () => {
    const text = yaml.replace("intervalMs: 100", "intervalMs: fast").replace("below: 50", "below: soon");
    const markers = planYamlMarkers(text);
    expect(markers.map((m) => [m.line, m.message])).toEqual([
      [lineOf(text, "intervalMs: fast"), "Scenario › Ping interval: enter a number"],
      [lineOf(text, "below: soon"), "SLOs › SLO 1 › Must stay below: enter a number"],
    ]);
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
    expect(planYamlMarkers("- a\n- b\n")[0]).toMatchObject({
      line: 1,
      message: expect.stringMatching(/not an object/),
    });
  });
});

describe("planTextMarkers on JSON", () => {
  it("names a wrong type and an unknown enum value by their form labels", () => {
    const text = json
      .replace('"intervalMs": 100', '"intervalMs": "fast"')
      .replace('"metric": "rtt-p99-ms"', '"metric": "speed"');
    const markers = planJsonMarkers(text);
    expect(markers.map((m) => [m.line, m.message.split(":")[0]])).toEqual([
      [lineOf(text, '"intervalMs": "fast"'), "Scenario › Ping interval"],
      [lineOf(text, '"metric": "speed"'), "SLOs › SLO 1 › Metric"],
    ]);
    expect(text.slice(markers[0]!.from, markers[0]!.to)).toBe('"fast"');
  });

  it("shows a JSON syntax error where parsing stops, with JSON.parse's reason", () => {
    const text = json.replace('"clients": 10', '"clients": ');
    const [marker, ...rest] = planJsonMarkers(text);
    expect(rest).toEqual([]);
    expect(marker).toMatchObject({ path: "form", line: lineOf(text, '"clients": ,') });
    expect(marker!.message).toMatch(/^Not valid JSON: /);
    expect(text.slice(marker!.from, marker!.to)).toBe(",");
  });

  it("refuses a trailing comma, which YAML would read, where JSON.parse stops: the next line's brace", () => {
    const text = json.replace('"durationSec": 30', '"durationSec": 30,');
    const [marker] = planJsonMarkers(text);
    expect(marker!.message).toMatch(/^Not valid JSON: /);
    expect(marker!.line).toBe(lineOf(text, '"durationSec": 30,') + 1);
    expect(text.slice(marker!.from, marker!.to)).toBe("}");
  });

  it("says so for an empty document and for one that is not an object", () => {
    expect(planJsonMarkers("  \n")[0]!.message).toMatch(/empty/);
    expect(planJsonMarkers("[1, 2]\n")[0]).toMatchObject({
      line: 1,
      from: 0,
      message: expect.stringMatching(/not an object/),
    });
  });
});
