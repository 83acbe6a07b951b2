import { fork, type ChildProcess } from "node:child_process";
import { startTarget, type RunningTarget, type TargetOptions, type TargetStats } from "./target-server";

/**
 * `throng-agent target --processes N`: one reference target served by N processes on the same ports (SO_REUSEPORT on
 * the native I/O path; the kernel spreads connections over them), each under its own open-file limit. This process
 * serves too and forks the other N − 1; GET /stats, whichever process answers it, sums every process's figures.
 */

/** The hidden CLI command a target's other processes run. */
export const TARGET_WORKER_COMMAND = "target-worker";

type ToWorker =
  | { type: "start"; options: TargetOptions }
  | { type: "stats"; id: number }
  | { type: "group-stats"; id: number; stats?: TargetStats; error?: string };
type FromWorker =
  | { type: "ready" }
  | { type: "failed"; error: string }
  | { type: "stats"; id: number; stats: TargetStats }
  /** A worker's own GET /stats: it asks this process for the group's sum. */
  | { type: "group-stats?"; id: number };

/** Figures of several processes as one target's: counts, CPU and memory added up. */
export function sumStats(parts: readonly TargetStats[]): TargetStats {
  const add = (pick: (s: TargetStats) => number | undefined) => parts.reduce((sum, s) => sum + (pick(s) ?? 0), 0);
  const withPss = parts.every((s) => s.pssBytes !== undefined);
  return {
    clients: add((s) => s.clients),
    accepted: add((s) => s.accepted),
    messages: add((s) => s.messages),
    cpuPercent: Math.round(add((s) => s.cpuPercent) * 10) / 10,
    rssBytes: add((s) => s.rssBytes),
    ...(withPss ? { pssBytes: add((s) => s.pssBytes) } : {}),
    processes: add((s) => s.processes),
  };
}

/** Answers to numbered requests over one channel. */
function requests<T>() {
  let next = 0;
  const waiting = new Map<number, { resolve(value: T): void; reject(error: Error): void }>();
  return {
    ask(send: (id: number) => void): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        send(id);
      });
    },
    answer(id: number, value: T | Error) {
      const waiter = waiting.get(id);
      waiting.delete(id);
      if (value instanceof Error) waiter?.reject(value);
      else waiter?.resolve(value);
    },
    failAll(error: Error) {
      for (const waiter of waiting.values()) waiter.reject(error);
      waiting.clear();
    },
  };
}

/**
 * Each process is a session of its own (`detached`: setsid), so a scheduler that shares the CPU by session (Linux's
 * autogroup, on by default on most distributions and on this project's VMs) weighs the target as the N processes it
 * is. In one session, its N processes shared one session's share: beside four agents (four sessions) on one host the
 * target got a fifth of the CPU, ran at ~2% per process and let its accept queues overflow, and the run measured
 * the scheduler instead of the agents. A worker still leaves with this process: it exits when the IPC channel closes.
 */
function forkWorker(entry: string, options: TargetOptions): Promise<ChildProcess> {
  const child = fork(entry, [TARGET_WORKER_COMMAND], {
    execArgv: process.execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`a target process exited with ${code} before it was listening`)));
    const onMessage = (message: FromWorker) => {
      if (message.type === "ready") resolve(child);
      else if (message.type === "failed") reject(new Error(message.error));
      else return;
      child.off("message", onMessage);
    };
    child.on("message", onMessage);
    child.send({ type: "start", options } satisfies ToWorker);
  });
}

/**
 * Starts the target in `processes` processes: this one first (a port 0 is chosen here), then the others on the same
 * ports. UDP, when asked, is served by this process only. `entry` is the CLI script the others run.
 */
export async function startTargetGroup(
  options: TargetOptions & { processes: number },
  entry = process.argv[1]!,
): Promise<RunningTarget> {
  const { processes, ...rest } = options;
  const fromWorkers = requests<TargetStats>();
  let workers: ChildProcess[] = [];
  let own: RunningTarget | undefined;
  const groupStats = async () => {
    const parts = await Promise.all([
      own!.stats(),
      ...workers
        .filter((w) => w.connected)
        .map((w) => fromWorkers.ask((id) => w.send({ type: "stats", id } satisfies ToWorker))),
    ]);
    return sumStats(parts);
  };
  own = await startTarget({ ...rest, reusePort: true, groupStats });
  const { udp: _udp, ...workerOptions } = rest;
  const onSamePorts: TargetOptions = {
    ...workerOptions,
    port: own.port,
    ...(rest.tcp && own.tcpPort ? { tcp: { ...rest.tcp, port: own.tcpPort } } : {}),
    reusePort: true,
  };
  try {
    workers = await Promise.all(Array.from({ length: processes - 1 }, () => forkWorker(entry, onSamePorts)));
  } catch (error) {
    await own.close();
    throw error;
  }
  for (const worker of workers) {
    worker.on("message", (message: FromWorker) => {
      if (message.type === "stats") fromWorkers.answer(message.id, message.stats);
      else if (message.type === "group-stats?")
        groupStats().then(
          (stats) => worker.connected && worker.send({ type: "group-stats", id: message.id, stats } satisfies ToWorker),
          (error: Error) =>
            worker.connected &&
            worker.send({ type: "group-stats", id: message.id, error: error.message } satisfies ToWorker),
        );
    });
  }
  const started = own;
  return {
    ...started,
    allStats: groupStats,
    async close() {
      fromWorkers.failAll(new Error("the target is closing"));
      await Promise.all(
        workers.map((worker) =>
          worker.exitCode !== null
            ? undefined
            : new Promise((resolve) => {
                worker.once("exit", resolve);
                worker.disconnect();
              }),
        ),
      );
      await started.close();
    },
  };
}

/** What a forked target process runs: serves on the group's ports until its parent goes, answering stats requests. */
export function runTargetWorker(): void {
  const send = (message: FromWorker) => process.send?.(message);
  const group = requests<TargetStats>();
  let target: RunningTarget | undefined;
  process.on("disconnect", () => {
    group.failAll(new Error("the target is closing"));
    void (target?.close() ?? Promise.resolve()).finally(() => process.exit(0));
  });
  process.on("message", (message: ToWorker) => {
    if (message.type === "stats") return target && send({ type: "stats", id: message.id, stats: target.stats() });
    if (message.type === "group-stats")
      return group.answer(message.id, message.stats ?? new Error(message.error ?? "no stats"));
    const groupStats = () => group.ask((id) => send({ type: "group-stats?", id }));
    startTarget({ ...message.options, warn: (text) => console.warn(text), groupStats }).then(
      (started) => {
        target = started;
        send({ type: "ready" });
      },
      (error: Error) => send({ type: "failed", error: error.message }),
    );
  });
}
