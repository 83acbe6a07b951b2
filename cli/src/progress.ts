import type { RunProgress } from "./run-follow";

function rate(n: number): string {
  return n >= 10_000 ? `${(n / 1000).toFixed(0)}k` : n >= 1_000 ? `${(n / 1000).toFixed(1)}k` : String(Math.round(n));
}

/** Seconds since the run started (or since following began, while it is still queued). */
function elapsedSec(progress: RunProgress, followStartedAt: number, now: number): number {
  const started = progress.run.startedAt ? Date.parse(progress.run.startedAt) : followStartedAt;
  return Math.max(0, Math.floor((now - started) / 1000));
}

/** One progress line: `  12s running  clients 100  msgs/s in 1.2k out 1.2k  p99 3.40 ms  errors 0`. */
export function progressLine(progress: RunProgress, followStartedAt: number, now: number): string {
  const { run, point } = progress;
  const parts = [`${String(elapsedSec(progress, followStartedAt, now)).padStart(5)}s ${run.status.padEnd(9)}`];
  if (point) {
    parts.push(
      `clients ${point.clients}`,
      `msgs/s out ${rate(point.messagesSentPerSec)} in ${rate(point.messagesReceivedPerSec)}`,
      `p99 ${point.rttP99Ms === null ? "-" : point.rttP99Ms.toFixed(2)} ms`,
      `errors ${point.errors}`,
    );
    if (point.agentHealth?.some((agent) => agent.saturated)) parts.push("AGENT SATURATED");
  }
  return parts.join("  ");
}

export interface ProgressPrinter {
  update(progress: RunProgress): void;
  /** Ends a redrawn line so the next output starts on its own line. */
  done(): void;
}

/**
 * On a TTY one line redrawn in place; elsewhere (CI logs) one line per new second or status change, so a
 * log shows each second once instead of repeating a stalled one.
 */
export function createProgressPrinter(
  out: { write(text: string): unknown },
  isTTY: boolean,
  now: () => number = Date.now,
): ProgressPrinter {
  const startedAt = now();
  let lastKey = "";
  let drawn = false;
  return {
    update(progress) {
      const key = `${progress.run.status}:${progress.point?.t ?? ""}`;
      if (isTTY) {
        out.write(`\r\x1b[K${progressLine(progress, startedAt, now())}`);
        drawn = true;
      } else if (key !== lastKey) {
        out.write(`${progressLine(progress, startedAt, now())}\n`);
      }
      lastKey = key;
    },
    done() {
      if (drawn) out.write("\n");
      drawn = false;
    },
  };
}
