// Processes under test, each in a session of its own (detached: setsid), as separate services or terminals would be:
// with the kernel's autogroup scheduling (on by default) a session is what shares the CPU with the host's other work,
// so the agent, the target and each helper process get a share each, not one share between them and the bench.
import { spawn, type ChildProcess } from "node:child_process";
import { writeFileSync } from "node:fs";

/** Processes started and not seen to exit: their whole sessions are killed when the bench stops. */
const running = new Set<ChildProcess>();
let cleanupInstalled = false;

/** Kills `child`'s whole session (its engine or worker processes too). */
export function killSession(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** On the bench's exit or interruption, every session it started goes too. */
function installCleanup(): void {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  process.once("exit", () => running.forEach(killSession));
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => process.exit(130));
}

/**
 * `command args` in a session of its own. `autogroupNice` (BENCH_AUTOGROUP_NICE, e.g. -10; root only) weighs its
 * session against the host's others (/proc/PID/autogroup): on a host shared with other work, what a big run
 * measures is then the agent and the target, not the queue for a core. Say so next to the figures when it is used.
 */
export function spawnInSession(
  command: string,
  args: string[],
  options: { stdout?: "pipe" | "ignore"; stderr?: "pipe" | "inherit" | "ignore"; autogroupNice?: number } = {},
): ChildProcess {
  installCleanup();
  const child = spawn(command, args, {
    detached: true,
    stdio: ["ignore", options.stdout ?? "ignore", options.stderr ?? "inherit"],
  });
  running.add(child);
  child.once("exit", () => running.delete(child));
  if (options.autogroupNice !== undefined) weighSession(child.pid!, options.autogroupNice);
  return child;
}

/** Weighs the session (autogroup) of process `pid` against the host's others; a no-op where that cannot be done. */
export function weighSession(pid: number, nice: number): void {
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(nice));
  } catch {
    // Not root, or no autogroup: the session keeps the default weight.
  }
}
