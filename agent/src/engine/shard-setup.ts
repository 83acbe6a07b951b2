import { availableParallelism } from "node:os";
import type { RunAssignment } from "@throng/protocol/agent";
import type { PlanSpec } from "@throng/protocol/plan";
import { openFileLimit } from "../metrics/health";
import { clientsPerEngine, enginesForOpenFiles } from "./open-files";
import { bindsOwnPorts } from "../transports/create-transport";
import { agentPortRange, type PortRange } from "../transports/local-ports";
import { claimLoopbackBlock, type LoopbackBlock } from "./loopback-block";

/**
 * How one shard runs on this host, decided the same way by `run` and `connect`: how many engine processes, and
 * which local addresses its connections come from.
 */

/**
 * Connections one local address takes: the agent's part of the kernel's ephemeral range (19,056 of Linux's default
 * 32768–60999, local-ports.ts keeps the rest for the kernel), less a tenth so the port cursor rarely meets a busy port.
 */
export function portsPerSourceAddress(range: PortRange = agentPortRange()): number {
  return Math.floor((range.last - range.first + 1) * 0.9);
}
/**
 * Above this many clients to a loopback target the engine binds its own local ports: past ~14k connections from one
 * address the kernel's connect() port search was 40% of the agent's CPU (docs/benchmarks.md, "Agent"); 10k clients
 * still ran at 100% of rate with kernel-chosen ports, and small runs keep the kernel's choice.
 */
const KERNEL_PORTS_UP_TO = 10_000;

/** The target's host, to tell whether it is on loopback. */
function targetHost(plan: PlanSpec): string {
  return plan.target.protocol === "websocket" ? new URL(plan.target.url).hostname : plan.target.host;
}

/**
 * The `host`-th loopback address of block `block` (127.block.0.host): each shard on a host holds a block of its own
 * (loopback-block.ts), so shards of one run, and of runs started together, never share a source address and port.
 */
function loopbackAddress(block: number, host: number): string {
  const n = (block % 256) * 65_536 + host;
  return `127.${n >> 16}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * For a loopback target with more than KERNEL_PORTS_UP_TO clients in the shard, connect from 127.0.0.2, 127.0.0.3, …
 * (all of 127.0.0.0/8 is loopback on Linux), one address per portsPerSourceAddress() clients; given source
 * addresses make the engine choose its own local ports (transports/local-ports.ts). UDP: 127.0.0.1, … only past
 * one address's ports. Undefined when not needed or when the plan gives its own.
 */
export function loopbackSourceAddresses(
  plan: PlanSpec,
  clients = plan.load.clients,
  block = 0,
  perAddress = portsPerSourceAddress(),
): string[] | undefined {
  if (plan.target.sourceAddresses || !targetHost(plan).startsWith("127.")) return undefined;
  const needed = Math.ceil(clients / perAddress);
  // UDP and KCP bind their own sockets (no connect-time port search): more addresses only past one address's ports.
  const ownPorts = !bindsOwnPorts(plan.target) && clients > KERNEL_PORTS_UP_TO;
  if (!ownPorts)
    return needed > 1 ? Array.from({ length: needed }, (_, i) => loopbackAddress(block, i + 1)) : undefined;
  // Not 127.0.0.1: its ports in TIME_WAIT from kernel-chosen connections (ours from a smaller run a minute ago,
  // or any other process's) lack SO_REUSEADDR and refuse a bind for 60 s; 127.0.0.2 and up are ours alone.
  return Array.from({ length: needed }, (_, i) => loopbackAddress(block, i + 2));
}

/** A warning when --engines leaves more clients per process than its open-file limit holds. */
export function fdWarning(clientsPerProcess: number, limit: number | undefined): string | undefined {
  if (limit === undefined || clientsPerProcess <= clientsPerEngine(limit)) return undefined;
  return `warning: each engine process opens up to ${clientsPerProcess} connections but the open-file limit is ${limit} (${clientsPerEngine(limit)} for connections); connections past it fail with cause "limit". Leave out --engines to size them to the clients, or raise the limit (ulimit -n).`;
}

/** A room's players stay in one engine process (one clock measures their broadcasts): the unit a shard is split in. */
export function planRoomSize(plan: PlanSpec): number {
  const { scenario } = plan;
  return scenario.kind === "movement-sync" || scenario.kind === "script" ? (scenario.roomSize ?? 1) : 1;
}

export interface ShardSetup {
  engines: number;
  sourceAddresses?: string[];
  /** Lines for the agent's output: the engines it sized, the source addresses it chose, a limit it may hit. */
  notes: string[];
}

/** What this host gives a shard: its cores and its open-file limit (after engine/open-files.ts raised it). */
export interface HostLimits {
  cores: number;
  openFileLimit: number | undefined;
}

export const thisHost = (): HostLimits => ({ cores: availableParallelism(), openFileLimit: openFileLimit() });

/**
 * The engines and source addresses for `assignment`: `given` (the --engines and --source-addresses flags) wins;
 * else engines fit the shard's clients to the open-file limit and a loopback target gets addresses of `block`
 * (the one the shard claimed on this host: claimShardBlock).
 * Refused, naming the limit and how to raise it, when even the most engines cannot hold the shard.
 */
export function shardSetup(
  assignment: Pick<RunAssignment, "plan" | "clients" | "shardIndex">,
  given: { engines?: number; sourceAddresses?: string[] },
  host: HostLimits = thisHost(),
  block: Pick<LoopbackBlock, "index" | "moved"> = { index: assignment.shardIndex, moved: false },
): ShardSetup | { refused: string } {
  const notes: string[] = [];
  const roomSize = planRoomSize(assignment.plan);
  let engines: number;
  if (given.engines !== undefined) {
    engines = given.engines;
    const warning = fdWarning(Math.ceil(assignment.clients / engines), host.openFileLimit);
    if (warning) notes.push(warning);
  } else {
    const sized = enginesForOpenFiles({ clients: assignment.clients, roomSize }, host.cores, host.openFileLimit);
    if ("refused" in sized) return sized;
    engines = sized.engines;
    if (sized.note) notes.push(sized.note);
  }
  const sourceAddresses =
    given.sourceAddresses ?? loopbackSourceAddresses(assignment.plan, assignment.clients, block.index);
  if (sourceAddresses && !given.sourceAddresses)
    notes.push(
      `note: ${assignment.clients} clients to a loopback target: connecting from ${sourceAddresses.join(", ")} with the engine's own local ports` +
        (block.moved ? " (another run's shard on this host holds the addresses this one would take first)" : ""),
    );
  return { engines, ...(sourceAddresses ? { sourceAddresses } : {}), notes };
}

/**
 * The loopback block `assignment`'s shard connects from, claimed on this host for as long as the shard runs
 * (release it when the shard ends); none needed (undefined) when the shard would not choose its own addresses.
 */
export async function claimShardBlock(
  assignment: Pick<RunAssignment, "plan" | "clients" | "shardIndex">,
  given: { sourceAddresses?: string[] },
): Promise<LoopbackBlock | undefined> {
  if (given.sourceAddresses || !loopbackSourceAddresses(assignment.plan, assignment.clients)) return undefined;
  return claimLoopbackBlock(assignment.shardIndex);
}
