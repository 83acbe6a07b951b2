import { createWriteStream } from "node:fs";
import { runAgent } from "../connection/agent";
import { resolveWatchedProcess, watchProcess } from "../metrics/process-watch";
import { createWatchShard } from "../engine/watch-shard";
import { consoleLogger } from "./console-logger";
import { ExitCode, exitCodeForClose } from "./exit-codes";
import { shutdownSignal } from "./signals";

export interface WatchArgs {
  pid?: number;
  name?: string;
  out?: string;
  /** Stop after this many seconds (default: until SIGINT/SIGTERM or the process ends). */
  durationSec?: number;
  /** Join the control plane as a watcher (PROTOCOL.md §11) instead of printing samples. */
  server?: string;
  token?: string;
  configPath?: string;
  labels?: Record<string, string>;
}

/** `watch --server`: connects like `connect`, declared as a watcher; each run that asks for one gets this process's seconds. */
async function watchForRuns(pid: number, args: WatchArgs & { server: string }): Promise<ExitCode> {
  const shutdown = shutdownSignal(() => process.exit(ExitCode.failure));
  try {
    const exit = await runAgent({
      server: args.server,
      configPath: args.configPath!,
      labels: args.labels ?? {},
      ...(args.token ? { token: args.token } : {}),
      role: "watch",
      runShard: createWatchShard(pid),
      log: consoleLogger,
      signal: shutdown.signal,
    });
    if (exit.kind === "stopped") return ExitCode.ok;
    consoleLogger.error(`the server refused this watcher (close ${exit.closeCode}): ${exit.reason}`);
    return exitCodeForClose(exit.closeCode);
  } finally {
    shutdown.dispose();
  }
}

/** `throng-agent watch`: samples the server process and the host's network once a second from /proc. */
export async function watchCommand(args: WatchArgs): Promise<ExitCode> {
  const watched = resolveWatchedProcess(args);
  if ("error" in watched) {
    console.error(watched.error);
    return ExitCode.usage;
  }
  const { pid } = watched;
  if (args.server) {
    console.log(`watching pid ${pid} for the runs of ${args.server}`);
    return watchForRuns(pid, { ...args, server: args.server });
  }
  let watcher: ReturnType<typeof watchProcess>;
  try {
    watcher = watchProcess(pid);
  } catch {
    console.error(`cannot read /proc/${pid}: no such process (watch needs Linux /proc)`);
    return ExitCode.usage;
  }
  const out = args.out ? createWriteStream(args.out) : undefined;
  const shutdown = shutdownSignal(() => process.exit(ExitCode.failure));
  console.log(`watching pid ${pid}`);
  try {
    // Bounded by the duration, the signal, or the process ending.
    for (let second = 0; args.durationSec === undefined || second < args.durationSec; second += 1) {
      const aborted = await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), 1_000);
        shutdown.signal.addEventListener(
          "abort",
          () => {
            clearTimeout(timer);
            resolve(true);
          },
          { once: true },
        );
      });
      if (aborted) break;
      let snapshot: ReturnType<typeof watcher.sample>;
      try {
        snapshot = watcher.sample();
      } catch {
        console.log(`pid ${pid} ended`);
        break;
      }
      out?.write(`${JSON.stringify(snapshot)}\n`);
      const n = snapshot.network;
      console.log(
        `${String(snapshot.seq + 1).padStart(4)}s | pid ${pid} cpu ${snapshot.cpuPercent}% rss ${(snapshot.rssBytes / 1048576).toFixed(1)} MiB fds ${snapshot.openFds ?? "-"} | net pkt/s in ${n.packetsInPerSec} out ${n.packetsOutPerSec} | B/s in ${n.bytesInPerSec} out ${n.bytesOutPerSec}`,
      );
    }
  } finally {
    shutdown.dispose();
    if (out) await new Promise<void>((resolve) => out.end(resolve));
  }
  return ExitCode.ok;
}
