import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kcpTestServerBinary, runKcpGoClients, startKcpGoServer, type KcpGoServer } from "../testing/kcp-go";
import { startLossyRelay, type LossyRelay } from "../testing/lossy-relay";
import { merged, runPlan, total } from "../testing/assignment";

// Throng's KCP beside kcp-go's own client, at the same time, through the same bad network to the same kcp-go echo
// server: 10 clients each, a 64-byte ping every 100 ms (one in flight), 10% of datagrams lost each way, 20 ms each
// way, kcptun's "fast" mode on every end. Both sets of figures are printed; no timing is asserted (the machine is
// shared), only that both measured and that KCP recovered every loss.

const CLIENTS = 10;
const INTERVAL_MS = 100;
const DURATION_SEC = 10;

let server: KcpGoServer | undefined;
let relay: LossyRelay | undefined;
beforeAll(async () => {
  await kcpTestServerBinary();
  server = await startKcpGoServer("echo", { mode: "fast" });
  relay = await startLossyRelay(
    { host: "127.0.0.1", port: server.port },
    { lossPercent: 10, delayMs: 20, seed: "kcp latency" },
  );
}, 10 * 60_000);
afterAll(async () => {
  await relay?.close();
  await server?.close();
});

describe("Throng's KCP and kcp-go's client under 10% loss and 20 ms each way", () => {
  it("both ping the same kcp-go echo server at the same rate; their latencies are printed side by side", async () => {
    const [snapshots, kcpGo] = await Promise.all([
      runPlan({
        target: { protocol: "kcp", host: "127.0.0.1", port: relay!.port, mode: "fast" },
        scenario: {
          kind: "ping-pong",
          intervalMs: INTERVAL_MS,
          messageBytes: 64,
          match: { by: "json-field", field: "seq" },
        },
        load: { clients: CLIENTS, durationSec: DURATION_SEC, rampUpSec: 0 },
      }),
      runKcpGoClients({
        port: relay!.port,
        clients: CLIENTS,
        intervalMs: INTERVAL_MS,
        durationSec: DURATION_SEC,
        bytes: 64,
        tuning: { mode: "fast" },
      }),
    ]);
    const rtt = merged(snapshots, "rttUs")!;
    const ms = (us: number) => (us / 1000).toFixed(1);
    const throng = {
      pings: rtt.totalCount,
      p50: ms(rtt.getValueAtPercentile(50)),
      p99: ms(rtt.getValueAtPercentile(99)),
      max: ms(rtt.maxValue),
    };
    console.log(
      [
        `KCP ping-pong, ${CLIENTS} clients × 1 ping / ${INTERVAL_MS} ms for ${DURATION_SEC} s, 10% loss and 20 ms each way (relay dropped ${relay!.dropped} of ${relay!.dropped + relay!.forwarded} datagrams):`,
        `  Throng  ${throng.pings} pings answered, p50 ${throng.p50} ms, p99 ${throng.p99} ms, max ${throng.max} ms; retransmits ${total(snapshots, "kcpRetransmits")} (fast ${total(snapshots, "kcpFastRetransmits")}, RTO ${total(snapshots, "kcpRtoExpiries")}); wire ${total(snapshots, "kcpWireBytesSent")} B sent, ${total(snapshots, "kcpWireBytesReceived")} B received`,
        `  kcp-go  ${kcpGo.received} pings answered, p50 ${kcpGo.p50Ms.toFixed(1)} ms, p99 ${kcpGo.p99Ms.toFixed(1)} ms, max ${kcpGo.maxMs.toFixed(1)} ms; retransmits ${kcpGo.retransmits} (fast ${kcpGo.fastRetransmits}, RTO ${kcpGo.rtoExpiries}); wire ${kcpGo.wireBytesSent} B sent, ${kcpGo.wireBytesReceived} B received`,
      ].join("\n"),
    );
    // Both measured most of their pings (the rest skipped while one was in flight), and KCP lost none of them.
    expect(rtt.totalCount).toBeGreaterThan(CLIENTS * DURATION_SEC * (1000 / INTERVAL_MS) * 0.5);
    expect(kcpGo.received).toBeGreaterThan(CLIENTS * DURATION_SEC * (1000 / INTERVAL_MS) * 0.5);
    expect(total(snapshots, "errors")).toBe(0);
    expect(total(snapshots, "kcpRetransmits")).toBeGreaterThan(0);
  }, 60_000);
});
