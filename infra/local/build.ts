import { promises as fs } from "node:fs";
import path from "node:path";
import { runCommand } from "./child";
import { prefixedLog, type Log } from "./log";

export interface BuildTarget {
  workspace: string;
  /** A file every successful build writes last-ish; its mtime is the build's time. */
  output: string;
  /** Files and folders whose changes make the output stale (relative to the repo root). */
  sources: string[];
}

export const agentBuild: BuildTarget = {
  workspace: "@throng/agent",
  output: "agent/dist/throng-agent.mjs",
  sources: [
    "agent/src",
    "agent/native",
    "agent/build.mjs",
    "agent/node-bundle.mjs",
    "agent/package.json",
    "packages/protocol/src",
    "packages/wire/src",
    "package-lock.json",
  ],
};

export const webBuild: BuildTarget = {
  workspace: "@throng/web",
  output: "apps/web/.next/BUILD_ID",
  sources: ["apps/web", "packages/protocol/src", "package-lock.json"],
};

// Written by builds and type checks themselves, or not part of what ships.
const ignoredNames = new Set(["node_modules", ".next", "dist", "next-env.d.ts"]);
const ignoredPattern = /\.tsbuildinfo$|\.test\.tsx?$/;

/** True when the output is missing or older than some source file. */
export async function isStale(root: string, target: BuildTarget): Promise<boolean> {
  const built = await mtime(path.join(root, target.output));
  if (built === undefined) return true;
  const newest = Math.max(...(await Promise.all(target.sources.map((source) => newestMtime(path.join(root, source))))));
  return newest > built;
}

/** Runs `npm run build -w <workspace>` unless the output is newer than every source file. */
export async function buildIfStale(root: string, target: BuildTarget, log: Log): Promise<void> {
  if (!(await isStale(root, target))) return;
  log(`building ${target.workspace}`);
  const started = Date.now();
  await runCommand({
    name: `${target.workspace} build`,
    command: "npm",
    args: ["run", "build", "--silent", "-w", target.workspace],
    cwd: root,
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
    log: prefixedLog("build"),
  });
  log(`built ${target.workspace} in ${Math.round((Date.now() - started) / 1000)} s`);
}

async function mtime(file: string): Promise<number | undefined> {
  try {
    return (await fs.stat(file)).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Newest mtime of a file, or of any file under a folder (0 when missing). A few hundred stats: cheap. */
async function newestMtime(entry: string): Promise<number> {
  let stat: Awaited<ReturnType<typeof fs.stat>>;
  try {
    stat = await fs.stat(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  const children = await fs.readdir(entry);
  const times = await Promise.all(
    children
      .filter((name) => !ignoredNames.has(name) && !ignoredPattern.test(name))
      .map((name) => newestMtime(path.join(entry, name))),
  );
  return Math.max(0, ...times);
}
