import { execFileSync } from "node:child_process";
import { constants } from "node:os";
import { DESCRIPTOR_RESERVE, openFileLimits } from "../metrics/health";
import { raiseNofileNatively } from "../transports/native-io";

/**
 * Open files are the wall for one rig: each connection is a descriptor, counted against its process's limit
 * (20,000 on the development VM, 1,024 soft on many hosts). The agent raises its soft limit to the hard one at
 * start (engine processes inherit it), sizes a shard's engine processes to its clients (enginesForOpenFiles), and each engine
 * keeps DESCRIPTOR_RESERVE descriptors for itself (guardDescriptors). See docs/scale.md.
 */

/** Engine processes one shard may use (the --engines flag's maximum too). */
export const MAX_ENGINES = 256;

/** What raising the limit at start did: the soft limit before and after, the hard one, and how. */
export interface OpenFileRaise {
  before: number | undefined;
  after: number | undefined;
  hard: number | undefined;
  /** `already`: soft was the hard limit (Node raises it at start-up on Linux); `failed`: both ways failed (`problem`). */
  how: "already" | "setrlimit" | "prlimit" | "failed" | "unknown";
  problem?: string;
}

export interface RaiseWays {
  /** setrlimit in the native addon: the new soft limit, -errno, or why the addon is missing. */
  native(): number | string;
  /** util-linux prlimit on this process (throws when it fails). */
  prlimit(pid: number, limit: number): void;
  limits(): { soft: number; hard: number } | undefined;
}

/** The real ways: the addon, util-linux prlimit, /proc/self/limits. */
export const systemRaiseWays: RaiseWays = {
  native: raiseNofileNatively,
  prlimit: (pid, limit) =>
    void execFileSync("prlimit", ["--pid", String(pid), `--nofile=${limit}:${limit}`], {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 5_000,
    }),
  limits: () => openFileLimits(),
};

const errnoName = (errno: number) =>
  Object.entries(constants.errno).find(([, value]) => value === errno)?.[0] ?? `errno ${errno}`;

/** Raises this process's soft open-file limit to the hard one: the native addon's setrlimit, else `prlimit --pid`. */
export function raiseOpenFileLimit(ways: RaiseWays = systemRaiseWays): OpenFileRaise {
  const start = ways.limits();
  if (!start) return { before: undefined, after: undefined, hard: undefined, how: "unknown" };
  const { soft: before, hard } = start;
  if (before >= hard) return { before, after: before, hard, how: "already" };
  const problems: string[] = [];
  const native = ways.native();
  if (typeof native === "number" && native >= 0)
    return { before, after: ways.limits()?.soft ?? native, hard, how: "setrlimit" };
  problems.push(typeof native === "string" ? native : `setrlimit: ${errnoName(-native)}`);
  if (Number.isFinite(hard)) {
    try {
      ways.prlimit(process.pid, hard);
      const after = ways.limits()?.soft;
      if (after !== undefined && after > before) return { before, after, hard, how: "prlimit" };
      problems.push("prlimit left the limit as it was");
    } catch (error) {
      problems.push(
        `prlimit: ${
          String((error as { stderr?: Buffer }).stderr ?? (error as Error).message)
            .trim()
            .split("\n")[0]
        }`,
      );
    }
  }
  return { before, after: before, hard, how: "failed", problem: problems.join("; ") };
}

/** How to raise the hard limit where the agent runs: the words every refusal and warning use. */
export const RAISE_LIMIT_HELP =
  "raise the open-file limit where the agent starts: `ulimit -n 1048576` in its shell (root, or up to the hard limit), LimitNOFILE=1048576 in its systemd unit, `docker run --ulimit nofile=1048576:1048576`, or the Helm chart's agent.openFileLimit";

/** One line for the run's output: the limit the engines get, and how it came to be. */
export function openFileNote(raise: OpenFileRaise): string {
  const n = (value: number | undefined) =>
    value === undefined ? "?" : value === Infinity ? "unlimited" : value.toLocaleString("en-US");
  switch (raise.how) {
    case "unknown":
      return "note: the open-file limit could not be read (no /proc/self/limits); one engine process per core";
    case "already":
      return `note: open-file limit ${n(raise.after)} per process (the hard limit already)`;
    case "setrlimit":
    case "prlimit":
      return `note: open-file limit raised from ${n(raise.before)} to ${n(raise.after)} per process (${raise.how === "setrlimit" ? "setrlimit, native addon" : "prlimit --pid"})`;
    case "failed":
      return `warning: open-file limit ${n(raise.before)} per process, not raised to the hard ${n(raise.hard)} (${raise.problem}); ${RAISE_LIMIT_HELP}`;
  }
}

/** Connections one engine process may hold under an open-file limit: the limit less the engine's own reserve. */
export function clientsPerEngine(limit: number): number {
  return Math.max(0, Math.min(Number.MAX_SAFE_INTEGER, limit) - DESCRIPTOR_RESERVE);
}

/** What an agent can hold, for its hello (agent/PROTOCOL.md §2): engines of `clientsPerEngine` clients each. */
export interface AgentCapacity {
  openFileLimit: number;
  clientsPerEngine: number;
  maxEngines: number;
}

/** This agent's capacity under `limit`, with `engines` fixed by --engines or up to MAX_ENGINES. */
export function agentCapacity(limit: number, engines?: number): AgentCapacity {
  return {
    openFileLimit: Math.min(limit, 2 ** 31 - 1),
    clientsPerEngine: Math.min(clientsPerEngine(limit), 2 ** 31 - 1),
    maxEngines: engines ?? MAX_ENGINES,
  };
}

export type EngineSizing = { engines: number; note?: string } | { refused: string };

/**
 * The engine processes for a shard when --engines is not given: one per core, more when its clients need them
 * (a room's players stay in one engine, so whole rooms are counted). Refused when even MAX_ENGINES cannot hold it.
 */
export function enginesForOpenFiles(
  shard: { clients: number; roomSize?: number },
  cores: number,
  limit: number | undefined,
): EngineSizing {
  const base = Math.max(1, cores);
  if (limit === undefined || !Number.isFinite(limit)) return { engines: base };
  const roomSize = Math.max(1, shard.roomSize ?? 1);
  const perEngine = clientsPerEngine(limit);
  const roomsPerEngine = Math.floor(perEngine / roomSize);
  const rooms = Math.ceil(shard.clients / roomSize);
  const needed = Math.ceil(rooms / Math.max(1, roomsPerEngine));
  const fmt = (value: number) => value.toLocaleString("en-US");
  if (roomsPerEngine === 0) {
    return {
      refused: `a room of ${fmt(roomSize)} players does not fit one engine process (${fmt(perEngine)} connections under the open-file limit of ${fmt(limit)}, less ${DESCRIPTOR_RESERVE} kept for the engine itself); ${RAISE_LIMIT_HELP}`,
    };
  }
  if (needed > MAX_ENGINES) {
    const each = roomsPerEngine * roomSize;
    return {
      refused:
        `${fmt(shard.clients)} clients do not fit this agent: at most ${fmt(MAX_ENGINES)} engine processes of ${fmt(each)} clients each ` +
        `(open-file limit ${fmt(limit)} per process, less ${DESCRIPTOR_RESERVE} kept for the engine itself${roomSize > 1 ? `, whole rooms of ${roomSize}` : ""}) hold ${fmt(MAX_ENGINES * each)}; ` +
        `${RAISE_LIMIT_HELP}; or spread the clients over more agents`,
    };
  }
  if (needed <= base) return { engines: base };
  return {
    engines: needed,
    note: `note: ${fmt(shard.clients)} clients need ${needed} engine processes (up to ${fmt(perEngine)} connections each under the open-file limit of ${fmt(limit)}; ${base} core${base === 1 ? "" : "s"})`,
  };
}
