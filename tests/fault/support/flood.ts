import { promises as fs } from "node:fs";
import WebSocket from "ws";

/** How the gateway answered one unauthenticated connection: held open (waiting for hello) or refused at the upgrade. */
export type FloodOutcome = { held: WebSocket } | { refused: number; retryAfter: string | null } | { failed: string };

/** One raw WebSocket to the gateway that never says hello, dialled from `localAddress` (a loopback alias). */
export function dialSilent(url: string, localAddress: string): Promise<FloodOutcome> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, { localAddress, handshakeTimeout: 20_000 });
    ws.once("open", () => resolve({ held: ws }));
    ws.once("unexpected-response", (_request, response) => {
      resolve({ refused: response.statusCode ?? 0, retryAfter: response.headers["retry-after"] ?? null });
      response.resume();
      ws.terminate();
    });
    ws.once("error", (err) => resolve({ failed: err.message }));
  });
}

/** `count` silent connections from one source address, `parallel` dialling at a time (a bounded flood). */
export async function flood(url: string, localAddress: string, count: number, parallel = 50): Promise<FloodOutcome[]> {
  const outcomes: FloodOutcome[] = [];
  for (let i = 0; i < count; i += parallel) {
    outcomes.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(parallel, count - i) }, () => dialSilent(url, localAddress)),
      )),
    );
  }
  return outcomes;
}

export function held(outcomes: FloodOutcome[]): WebSocket[] {
  return outcomes.flatMap((o) => ("held" in o ? [o.held] : []));
}

export function refusedWith(outcomes: FloodOutcome[], status: number): FloodOutcome[] {
  return outcomes.filter((o) => "refused" in o && o.refused === status);
}

/**
 * TCP sockets the process `pid` holds on its listening `port` (connections, not the listener), optionally only those
 * from `fromAddresses`: its descriptors' socket inodes matched against the kernel's socket tables.
 */
export async function socketsOnPort(pid: number, port: number, fromAddresses?: string[]): Promise<number> {
  const remotes = fromAddresses && new Set(fromAddresses.map(procAddress));
  const inodes = new Set<string>();
  for (const fd of await fs.readdir(`/proc/${pid}/fd`)) {
    const target = await fs.readlink(`/proc/${pid}/fd/${fd}`).catch(() => "");
    const match = /^socket:\[(\d+)\]$/.exec(target);
    if (match) inodes.add(match[1]!);
  }
  let count = 0;
  for (const table of ["tcp", "tcp6"]) {
    const text = await fs.readFile(`/proc/${pid}/net/${table}`, "utf8").catch(() => "");
    for (const line of text.split("\n").slice(1)) {
      const columns = line.trim().split(/\s+/);
      if (columns.length < 10) continue;
      const localPort = parseInt(columns[1]!.split(":")[1]!, 16);
      const listening = columns[3] === "0A";
      const remote = columns[2]!.split(":")[0]!.slice(-8); // IPv4, or the IPv4 inside a v4-mapped IPv6 address
      if (localPort === port && !listening && inodes.has(columns[9]!) && (!remotes || remotes.has(remote))) count += 1;
    }
  }
  return count;
}

/** An IPv4 address as /proc/net/tcp writes it: the four bytes in host (little-endian) order, in hex. */
function procAddress(ip: string): string {
  return ip
    .split(".")
    .reverse()
    .map((b) => Number(b).toString(16).padStart(2, "0"))
    .join("")
    .toUpperCase();
}

/** The process's resident set, in MB (from /proc). */
export async function rssMb(pid: number): Promise<number> {
  const status = await fs.readFile(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

/** Open descriptors of the process. */
export async function openFiles(pid: number): Promise<number> {
  return (await fs.readdir(`/proc/${pid}/fd`)).length;
}
