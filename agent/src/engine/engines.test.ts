import { describe, expect, it } from "vitest";
import type { Scenario } from "@throng/protocol/plan";
import { enginesFor, SCRIPT_CLIENTS_PER_ENGINE } from "./engines";

const script: Scenario = { kind: "script", script: { path: "bots.mjs" }, roomSize: 16 };
const movement: Scenario = { kind: "movement-sync", roomSize: 16, updateHz: 10 };

describe("engines per shard (issue 25 §4)", () => {
  it("a script shard runs on one engine per SCRIPT_CLIENTS_PER_ENGINE clients when --engines was not given, never more than the cores", () => {
    expect(enginesFor(script, 160, 2, false)).toBe(1);
    expect(enginesFor(script, SCRIPT_CLIENTS_PER_ENGINE, 8, false)).toBe(1);
    expect(enginesFor(script, SCRIPT_CLIENTS_PER_ENGINE + 1, 8, false)).toBe(2);
    expect(enginesFor(script, 100 * SCRIPT_CLIENTS_PER_ENGINE, 8, false)).toBe(8);
  });

  it("--engines is obeyed for a script shard, and every other scenario keeps one engine per core", () => {
    expect(enginesFor(script, 160, 2, true)).toBe(2);
    expect(enginesFor(movement, 160, 2, false)).toBe(2);
  });
});
