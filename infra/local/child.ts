import { spawn, type ChildProcess } from "node:child_process";
import readline from "node:readline";
import type { Readable } from "node:stream";
import type { Log } from "./log";

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildOptions {
  name: string;
  command: string;
  args: string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Run as this user (the orchestrator is root and PostgreSQL refuses to be). */
  uid?: number;
  gid?: number;
  /** Every output line goes here; omit to keep output only for error messages. */
  log?: Log;
  /** Databases: stopped by `stopAllChildren` only after everything that may still be using them. */
  stopLast?: boolean;
}

export interface Child {
  name: string;
  process: ChildProcess;
  /** Resolves when the process has exited, however that happened. */
  exited: Promise<ExitInfo>;
  /** Rejects if the process exits before `stop()` was called; for racing against readiness checks. */
  diedEarly: Promise<never>;
  /** The last lines it printed, for error messages. */
  tail(): string;
  /** Signals the whole process group, waits, and SIGKILLs what is left after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<ExitInfo>;
}

const tailLines = 40;
// Every child still running, so a Ctrl-C in the middle of a build or a test run can end it too.
const running = new Map<Child, boolean>();

/**
 * Starts a long-running child in its own process group. Its own group means a terminal Ctrl-C reaches
 * only the orchestrator, which then stops children in order (apps before the databases they use), and
 * a group kill also ends grandchildren such as Next.js workers.
 */
export function spawnChild(options: ChildOptions): Child {
  const child = spawn(options.command, options.args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    uid: options.uid,
    gid: options.gid,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > tailLines) lines.shift();
    options.log?.(line);
  };
  forEachLine(child.stdout, keep);
  forEachLine(child.stderr, keep);

  let stopping = false;
  const exited = new Promise<ExitInfo>((resolve) => {
    child.once("error", (error) => {
      keep(`failed to start ${options.command}: ${error.message}`);
      resolve({ code: -1, signal: null });
    });
    child.once("exit", (code, signal) => {
      // Wait for the last output lines too (they can trail the exit), unless a grandchild holds the pipes.
      const done = () => resolve({ code, signal });
      child.once("close", done);
      setTimeout(done, 1_000).unref();
    });
  });
  const diedEarly = exited.then((info): never => {
    const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
    throw new Error(`${options.name} ${how}${stopping ? " while stopping" : ""}. Last output:\n${lines.join("\n")}`);
  });
  diedEarly.catch(() => undefined); // Only callers that race against it care.

  const handle: Child = {
    name: options.name,
    process: child,
    exited,
    diedEarly,
    tail: () => lines.join("\n"),
    async stop(signal = "SIGTERM", graceMs = 10_000) {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return exited;
      killGroup(child.pid, signal);
      const timer = setTimeout(() => killGroup(child.pid!, "SIGKILL"), graceMs);
      const info = await exited;
      clearTimeout(timer);
      return info;
    },
  };
  running.set(handle, options.stopLast ?? false);
  void exited.then(() => running.delete(handle));
  return handle;
}

/** Stops every child this process started: apps, builds and test runners first, then the databases. */
export async function stopAllChildren(): Promise<void> {
  const first = [...running].filter(([, last]) => !last).map(([child]) => child.stop());
  await Promise.all(first);
  await Promise.all([...running.keys()].map((child) => child.stop("SIGINT")));
}

/** Runs a command to completion; rejects with its last output lines if it fails. */
export async function runCommand(options: ChildOptions): Promise<void> {
  const child = spawnChild(options);
  const info = await child.exited;
  if (info.code !== 0) {
    const how = info.signal ? `was killed by ${info.signal}` : `exited with code ${info.code}`;
    throw new Error(`${options.name} (${[options.command, ...options.args].join(" ")}) ${how}:\n${child.tail()}`);
  }
}

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

function forEachLine(stream: Readable | null, onLine: (line: string) => void): void {
  if (stream) readline.createInterface({ input: stream, crlfDelay: Infinity }).on("line", onLine);
}
