import net from "node:net";
import { ShardStatus } from "@throng/protocol/agent";
import { MetricSnapshot } from "@throng/protocol/snapshot";
import { createFrameReader } from "./ws-frames";

/** What one agent put on the wire, deduplicated by seq: resends after a reconnect overwrite an identical copy. */
export interface AgentRecord {
  snapshots: Map<string, Map<number, MetricSnapshot>>;
  /** The last shard-status per run (`finished`/`failed` carry lastSeq). */
  statuses: Map<string, { state: string; lastSeq?: number }>;
  /** How many times a snapshot was sent again after its first copy. */
  resends: number;
}

export interface AgentTap {
  port: number;
  record: AgentRecord;
  /** Fallback cut-off when no network namespace can be made: stop relaying and hold every socket open, silent. */
  blackhole(on: boolean): void;
  /** Sends new connections to another API (existing ones are left alone). */
  forwardTo(port: number): void;
  close(): Promise<void>;
}

/**
 * A TCP relay between one agent and the API that reads the agent's frames on the way through, so a test knows
 * exactly which snapshots the agent measured and sent, independently of what the server stored. It adds
 * X-Forwarded-For with the agent's own address, as a load balancer in front of the API would.
 */
export async function startAgentTap(options: { host: string; apiPort: number }): Promise<AgentTap> {
  const record: AgentRecord = { snapshots: new Map(), statuses: new Map(), resends: 0 };
  let apiPort = options.apiPort;
  let holding = false;
  const sockets = new Set<net.Socket>();

  const onMessage = (text: string) => {
    const message = JSON.parse(text) as { type: string; payload: unknown };
    if (message.type === "snapshot") {
      const snapshot = MetricSnapshot.parse(message.payload);
      const run = record.snapshots.get(snapshot.runId) ?? new Map<number, MetricSnapshot>();
      record.snapshots.set(snapshot.runId, run);
      if (run.has(snapshot.seq)) record.resends += 1;
      run.set(snapshot.seq, snapshot);
    } else if (message.type === "shard-status") {
      const status = ShardStatus.parse(message.payload);
      record.statuses.set(status.runId, { state: status.state, lastSeq: status.lastSeq });
    }
  };

  const server = net.createServer((agent) => {
    if (holding) return void sockets.add(agent); // accepted, never answered: a dead network, not a refusal
    const api = net.connect({ host: "127.0.0.1", port: apiPort });
    sockets.add(agent).add(api);
    const frames = createFrameReader(onMessage);
    let head: Buffer | null = Buffer.alloc(0);
    agent.on("data", (chunk: Buffer) => {
      if (holding) return;
      if (head === null) {
        frames.push(chunk);
        return void api.write(chunk);
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end < 0) return;
      const request = head.subarray(0, end).toString("latin1");
      api.write(`${request}\r\nx-forwarded-for: ${agent.remoteAddress}\r\n\r\n`, "latin1");
      const rest = head.subarray(end + 4);
      head = null;
      if (rest.length) {
        frames.push(rest);
        api.write(rest);
      }
    });
    api.on("data", (chunk: Buffer) => {
      if (!holding) agent.write(chunk);
    });
    const drop = () => {
      if (holding) return; // a blackholed link says nothing to either side
      agent.destroy();
      api.destroy();
    };
    for (const socket of [agent, api]) {
      socket.on("close", drop);
      socket.on("error", drop);
      socket.on("close", () => sockets.delete(socket));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, options.host, () => resolve());
  });
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    port,
    record,
    blackhole(on) {
      holding = on;
      if (!on) for (const socket of sockets) socket.destroy(); // the held sockets are long dead to both ends
    },
    forwardTo(next) {
      apiPort = next;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
