// The lint step of npm test (phase 1): `biome ci .` checks layout and the lint rules of biome.jsonc in a few
// seconds, before the slow tests, so a stray unused import fails the run with its file and line.
import path from "node:path";
import { packageBin } from "./binaries";
import { spawnChild } from "./child";
import type { Log } from "./log";
import { noCounts, type Counts } from "./test-report";

/** One check: passed when Biome finds nothing, failed (with its findings printed and what to run) otherwise. */
export async function runLint(root: string, log: Log, output: Log): Promise<Counts> {
  const biome = spawnChild({
    name: "biome ci",
    command: process.execPath,
    args: [packageBin(root, "@biomejs/biome", "biome"), "ci", "--colors=off", "."],
    cwd: path.resolve(root),
    log: output,
  });
  const { code } = await biome.exited;
  if (code === 0) return { ...noCounts, passed: 1 };
  log("lint failed: npm run format fixes layout; npm run lint lists the rest");
  return { ...noCounts, failed: 1 };
}
