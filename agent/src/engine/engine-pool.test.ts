import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentDir } from "../testing/cli-process";
import { engineEntry, engineExecArgv } from "./engine-pool";
import { secondsReady } from "./engines";

describe("what an engine process runs", () => {
  it("forks the engine's own bundle beside the CLI bundle, engine-main.ts beside the CLI's source, else the CLI itself", () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-entry-"));
    const cli = join(dir, "throng-agent.mjs");
    writeFileSync(cli, "");
    expect(engineEntry(cli)).toBe(cli);
    writeFileSync(join(dir, "throng-engine.mjs"), "");
    expect(engineEntry(cli)).toBe(join(dir, "throng-engine.mjs"));
    expect(engineEntry(join(agentDir, "src", "cli", "main.ts"))).toBe(
      join(agentDir, "src", "engine", "engine-main.ts"),
    );
  });

  it("keeps this process's flags and adds a small young generation, unless one is given", () => {
    expect(engineExecArgv(["--import", "tsx"])).toEqual(["--import", "tsx", "--max-semi-space-size=2"]);
    expect(engineExecArgv(["--max-semi-space-size=8"])).toEqual(["--max-semi-space-size=8"]);
  });
});

describe("merging a shard's seconds from its engine processes", () => {
  it("merges a second once every running engine reported it, in order", () => {
    expect(secondsReady([0, 1], [1, 0], [true, true])).toEqual([0]);
    expect(secondsReady([1, 0], [1, 1], [true, true])).toEqual([0, 1]);
    // A gone engine is not waited for.
    expect(secondsReady([0], [0, -1], [true, false])).toEqual([0]);
  });

  it("does not wait until the shard's end for the seconds an engine forked late never had", () => {
    // Engine 1 started at second 3: seconds 0–2 come from engine 0 alone once engine 1 is heard from.
    expect(secondsReady([0, 1, 2, 3], [3, -1], [true, true])).toEqual([]);
    expect(secondsReady([0, 1, 2, 3], [3, 3], [true, true])).toEqual([0, 1, 2, 3]);
  });
});
