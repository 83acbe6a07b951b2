import { readFileSync } from "node:fs";

const ticksPerSec = 100; // USER_HZ on Linux

/** A process's CPU time (s) and resident memory (bytes), read from /proc. */
export function processUsage(pid: number): { cpuSec: number; rssBytes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at index 2 of the text after ")".
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const cpuSec = (Number(fields[11]) + Number(fields[12])) / ticksPerSec;
  const rss = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return { cpuSec, rssBytes: Number(rss?.[1] ?? 0) * 1024 };
}

/** Samples a process once a second: CPU % over the whole window and the highest RSS seen. */
export function watchProcess(pid: number) {
  const start = processUsage(pid);
  const startedAt = Date.now();
  let peakRss = start.rssBytes;
  const timer = setInterval(() => {
    try {
      peakRss = Math.max(peakRss, processUsage(pid).rssBytes);
    } catch {
      clearInterval(timer); // the process is gone; whoever started it reports why
    }
  }, 1000);
  let stoppedAt: number | undefined;
  return {
    stop(): { cpuPercent: number; peakRssBytes: number } {
      clearInterval(timer);
      const end = processUsage(pid);
      stoppedAt = Date.now();
      const wallSec = (stoppedAt - startedAt) / 1000;
      return {
        cpuPercent: ((end.cpuSec - start.cpuSec) / wallSec) * 100,
        peakRssBytes: Math.max(peakRss, end.rssBytes),
      };
    },
    /** Seconds watched (until stop). */
    wallSec: () => ((stoppedAt ?? Date.now()) - startedAt) / 1000,
  };
}
