import { existsSync, readdirSync, readFileSync } from "node:fs";
import type { ServerWatchSnapshot } from "@throng/protocol/snapshot";

/** Kernel clock ticks per second for /proc CPU times; 100 on every mainstream Linux build. */
const CLOCK_TICKS_PER_SEC = 100;

export interface NetworkTotals {
  packetsIn: number;
  packetsOut: number;
  bytesIn: number;
  bytesOut: number;
}

/** Sums /proc/net/dev over every interface (loopback included: a local test's load travels there). */
export function parseNetDev(text: string): NetworkTotals {
  const totals = { packetsIn: 0, packetsOut: 0, bytesIn: 0, bytesOut: 0 };
  for (const line of text.split("\n").slice(2)) {
    const [, rest] = line.split(":");
    if (!rest) continue;
    const f = rest.trim().split(/\s+/).map(Number);
    totals.bytesIn += f[0] ?? 0;
    totals.packetsIn += f[1] ?? 0;
    totals.bytesOut += f[8] ?? 0;
    totals.packetsOut += f[9] ?? 0;
  }
  return totals;
}

/** utime + stime in clock ticks, from /proc/<pid>/stat (the command name may hold spaces and parentheses). */
export function parseStatCpuTicks(text: string): { ticks: number; threads: number } {
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // Field 3 of the man page is fields[0] here: utime is 14 → [11], stime 15 → [12], num_threads 20 → [17].
  return { ticks: Number(fields[11]) + Number(fields[12]), threads: Number(fields[17]) };
}

/** Every process matching `name` (its comm is `name`, or its command line contains it), not counting this one. */
export function findProcesses(name: string, procRoot = "/proc"): number[] {
  const found: number[] = [];
  for (const entry of readdirSync(procRoot)) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const comm = readFileSync(`${procRoot}/${entry}/comm`, "utf8").trim();
      const cmdline = readFileSync(`${procRoot}/${entry}/cmdline`, "utf8").replace(/\0/g, " ");
      // A watcher's own command line names the process it watches: never match a throng-agent or a watch.
      if (
        comm === name ||
        (cmdline.includes(name) && !cmdline.includes("throng-agent") && !/ (watch|--watch-name) /.test(cmdline))
      )
        found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

/** Which process to watch, from a pid or a name, or what was wrong (flag names as the command spells them). */
export function resolveWatchedProcess(
  args: { pid?: number | undefined; name?: string | undefined },
  flags = { pid: "--pid", name: "--name" },
  procRoot = "/proc",
): { pid: number } | { error: string } {
  if (args.pid !== undefined && args.name !== undefined)
    return { error: `give ${flags.pid} or ${flags.name}, not both` };
  if (args.pid !== undefined) {
    if (!existsSync(`${procRoot}/${args.pid}/stat`))
      return {
        error: `no process with pid ${args.pid} (${flags.pid}); is the server running on this host? (watching needs Linux /proc)`,
      };
    return { pid: args.pid };
  }
  if (args.name === undefined) return { error: `give ${flags.pid} <pid> or ${flags.name} <process-name>` };
  const pids = findProcesses(args.name, procRoot);
  if (pids.length === 0)
    return { error: `no process named "${args.name}" found (${flags.name}); check the name or pass ${flags.pid}` };
  if (pids.length > 1)
    return {
      error: `${pids.length} processes match "${args.name}" (${flags.name}): pids ${pids.slice(0, 10).join(", ")}; pass ${flags.pid} to choose one`,
    };
  return { pid: pids[0]! };
}

export interface ProcessWatcher {
  /** The interval since the previous sample; throws when the process is gone. */
  sample(): ServerWatchSnapshot;
}

/** Samples one process's CPU and memory and the host's network from /proc; `clock` stamps the samples (server time under the control plane). */
export function watchProcess(pid: number, procRoot = "/proc", clock: () => number = Date.now): ProcessWatcher {
  const read = () => ({
    at: Math.round(clock()),
    cpu: parseStatCpuTicks(readFileSync(`${procRoot}/${pid}/stat`, "utf8")),
    net: parseNetDev(readFileSync(`${procRoot}/net/dev`, "utf8")),
  });
  let last = read();
  let seq = 0;
  return {
    sample() {
      const now = read();
      const seconds = Math.max(0.001, (now.at - last.at) / 1000);
      const rssKb = /VmRSS:\s+(\d+)/.exec(readFileSync(`${procRoot}/${pid}/status`, "utf8"))?.[1];
      let openFds: number | undefined;
      try {
        openFds = readdirSync(`${procRoot}/${pid}/fd`).length;
      } catch {
        openFds = undefined; // another user's process: fds are not ours to list
      }
      const snapshot: ServerWatchSnapshot = {
        seq: seq++,
        intervalStart: last.at,
        intervalMs: Math.max(1, now.at - last.at),
        pid,
        cpuPercent: Math.round(((now.cpu.ticks - last.cpu.ticks) / CLOCK_TICKS_PER_SEC / seconds) * 1000) / 10,
        rssBytes: Number(rssKb ?? 0) * 1024,
        threads: now.cpu.threads,
        ...(openFds !== undefined ? { openFds } : {}),
        network: {
          packetsInPerSec: Math.round((now.net.packetsIn - last.net.packetsIn) / seconds),
          packetsOutPerSec: Math.round((now.net.packetsOut - last.net.packetsOut) / seconds),
          bytesInPerSec: Math.round((now.net.bytesIn - last.net.bytesIn) / seconds),
          bytesOutPerSec: Math.round((now.net.bytesOut - last.net.bytesOut) / seconds),
        },
      };
      last = now;
      return snapshot;
    },
  };
}
