import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const agentDir = fileURLToPath(new URL("../../", import.meta.url));
export const repoRoot = join(agentDir, "..");
export const bundle = join(agentDir, "dist", "throng-agent.mjs");

/** A plan file for `throng-agent run` in a folder of its own, which the test may put other files in. */
export interface TempPlanFile {
  path: string;
  dir: string;
  /** Removes the folder and all in it. */
  cleanup(): Promise<void>;
}

/** Writes `plan` as a plan file: YAML text as it is (plan.yaml), an object as JSON (plan.json). */
export async function tempPlanFile(plan: string | object): Promise<TempPlanFile> {
  const dir = await mkdtemp(join(tmpdir(), "throng-plan-"));
  const path = join(dir, typeof plan === "string" ? "plan.yaml" : "plan.json");
  await writeFile(path, typeof plan === "string" ? plan : JSON.stringify(plan));
  return { path, dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** `throng-agent connect` to `gateway` (a fake gateway takes any token), its credential kept at `configPath`. */
export function connectArgs(gateway: { server: string }, configPath: string): string[] {
  return ["connect", "--server", gateway.server, "--token", "t0ken", "--config", configPath];
}

/** The CLI from source (through tsx) or as the bundled file users install. */
export type Build = "source" | "bundle";

/** What a test reads from a CLI process: its output so far, and the first stdout line matching a pattern. */
export interface CliOutput {
  stdout: () => string;
  stderr: () => string;
  line(pattern: RegExp): Promise<string>;
}

/** Starts CLI processes for one test file and kills the ones still running when a test ends (`killAll`). */
export function cliProcesses() {
  const children: ChildProcess[] = [];
  /**
   * Runs the CLI; with `openFiles`, under that open-file limit (`ulimit -n` in a shell that then becomes the CLI;
   * `{ soft }` lowers only the soft limit).
   */
  function cli(
    build: Build,
    args: string[],
    env: NodeJS.ProcessEnv = process.env,
    openFiles?: number | { soft: number },
  ): ChildProcess {
    const entry = build === "source" ? ["--import", "tsx", join(agentDir, "src", "cli", "main.ts")] : [bundle];
    const argv = [process.execPath, ...entry, ...args];
    const ulimit =
      openFiles === undefined
        ? undefined
        : typeof openFiles === "number"
          ? `ulimit -n ${openFiles}`
          : `ulimit -Sn ${openFiles.soft}`;
    const [command, commandArgs] =
      ulimit === undefined
        ? [argv[0]!, argv.slice(1)]
        : ["bash", ["-c", `${ulimit} && exec ${argv.map((word) => `'${word}'`).join(" ")}`]];
    const child = spawn(command, commandArgs, {
      cwd: build === "source" ? repoRoot : tmpdir(),
      stdio: ["ignore", "pipe", "pipe"],
      env,
    });
    children.push(child);
    return child;
  }

  function outputOf(child: ChildProcess): CliOutput {
    let stdout = "";
    let stderr = "";
    child.stderr!.on("data", (chunk) => (stderr += String(chunk)));
    const lines: Array<() => void> = [];
    child.stdout!.on("data", (chunk) => {
      stdout += String(chunk);
      for (const wake of lines) wake();
    });
    return {
      stdout: () => stdout,
      stderr: () => stderr,
      line: (pattern) =>
        new Promise((resolve, reject) => {
          const check = () => {
            const match = stdout.split("\n").find((line) => pattern.test(line));
            if (match) resolve(match);
          };
          lines.push(check);
          child.once("exit", (code) =>
            reject(new Error(`exited ${code} before printing ${pattern}; stderr: ${stderr}`)),
          );
          check();
        }),
    };
  }

  const exitCode = (child: ChildProcess) =>
    new Promise<number | null>((resolve) =>
      child.exitCode !== null ? resolve(child.exitCode) : child.once("exit", (code) => resolve(code)),
    );
  const killAll = () => {
    for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  };
  return { cli, outputOf, exitCode, killAll };
}
