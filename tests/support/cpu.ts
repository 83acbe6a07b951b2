import { execFileSync } from "node:child_process";
import { availableParallelism, setPriority } from "node:os";

/**
 * A target of known capacity keeps that capacity only while it has a core to itself. On a machine with two
 * or more cores, the target goes on the last core at a raised priority and the load generator and server
 * processes on the first, so the test's own processes do not eat into the capacity it measures. Returns what
 * was done (or why not), for a failure's message: a shared machine is the first suspect when an estimate is off.
 */
export function giveTargetACore(targetPid: number, otherPids: readonly number[]): string {
  const cores = availableParallelism();
  const notes: string[] = [];
  try {
    setPriority(targetPid, -10);
    notes.push("target at nice -10");
  } catch (error) {
    notes.push(`target at normal priority (${(error as Error).message})`);
  }
  if (cores < 2) return [...notes, "one core: not pinned"].join("; ");
  try {
    // -a: every thread of the process (V8 and libuv run their own).
    execFileSync("taskset", ["-a", "-p", "-c", String(cores - 1), String(targetPid)], { stdio: "ignore" });
    for (const pid of otherPids) execFileSync("taskset", ["-a", "-p", "-c", "0", String(pid)], { stdio: "ignore" });
    notes.push(`target pinned to CPU ${cores - 1}, ${otherPids.length} other process(es) to CPU 0`);
  } catch (error) {
    notes.push(`not pinned (${(error as Error).message.split("\n")[0]})`);
  }
  return notes.join("; ");
}
