// Runs before `npm install` has ever happened, so: plain Node, no dependencies.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

/** node_modules is missing, or package-lock.json changed since npm last installed from it. */
function needsInstall() {
  const installed = path.join(root, "node_modules", ".package-lock.json");
  if (!existsSync(installed)) return true;
  return statSync(path.join(root, "package-lock.json")).mtimeMs > statSync(installed).mtimeMs;
}

function installDependencies() {
  console.log("[throng] installing dependencies (npm install)");
  const npm = process.platform === "win32" ? "npm.cmd" : "npm";
  const result = spawnSync(npm, ["install", "--no-audit", "--no-fund"], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) {
    console.error("[throng] npm install failed; fix the error above and run this command again.");
    process.exit(result.status ?? 1);
  }
}

/** Installs dependencies if needed, then runs `entry` (a .ts file) with tsx, passing argv, signals and the exit code through. */
export function runEntry(entry) {
  if (needsInstall()) installDependencies();
  const child = spawn(process.execPath, ["--import", "tsx", path.join(root, entry), ...process.argv.slice(2)], {
    cwd: root,
    stdio: "inherit",
  });
  // A terminal Ctrl-C reaches the child too; forwarding is for signals sent to this process alone.
  for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
  child.on("exit", (code, signal) => {
    // Shell convention for "ended by a signal": 128 + its number.
    process.exit(signal ? 128 + (os.constants.signals[signal] ?? 0) : (code ?? 1));
  });
}
