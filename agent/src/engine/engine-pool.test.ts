import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { agentDir } from "../testing/cli-process";
import { engineEntry, engineExecArgv } from "./engine-pool";

describe("what an engine process runs", () => {
  it("forks the engine's own bundle beside the CLI bundle, engine-main.ts beside the CLI's source, else the CLI itself", () => {
    const dir = mkdtempSync(join(tmpdir(), "engine-entry-"));
    const cli = join(dir, "throng-agent.mjs");
    writeFileSync(cli, "");
    expect(engineEntry(cli)).toBe(cli);
    writeFileSync(join(dir, "throng-engine.mjs"), "");
    expect(engineEntry(cli)).toBe(join(dir, "throng-engine.mjs"));
    expect(engineEntry(join(agentDir, "src", "cli", "main.ts"))).toBe(join(agentDir, "src", "engine", "engine-main.ts"));
  });

  it("keeps this process's flags and adds a small young generation, unless one is given", () => {
    expect(engineExecArgv(["--import", "tsx"])).toEqual(["--import", "tsx", "--max-semi-space-size=2"]);
    expect(engineExecArgv(["--max-semi-space-size=8"])).toEqual(["--max-semi-space-size=8"]);
  });
});
