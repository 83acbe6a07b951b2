import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import type { PlanSpec } from "@throng/protocol/plan";
import type { ReconnectPolicy } from "@throng/protocol/reconnect";
import { runPlan, total } from "../testing/assignment";
import type { MetricSnapshot } from "@throng/protocol/snapshot";

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/**
 * A login server: answers {"type":"login"} with login-ok and counts connects and logins per client (the client's
 * index is in the URL). With `dropOnceAfterMs`, it closes each client's first connection that long after it opened.
 */
async function loginServer(dropOnceAfterMs?: number) {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const seen = { connects: new Map<string, number>(), logins: 0, open: 0 };
  wss.on("connection", (socket, request) => {
    const client = new URL(request.url ?? "", "http://x").searchParams.get("c") ?? "?";
    const connects = (seen.connects.get(client) ?? 0) + 1;
    seen.connects.set(client, connects);
    seen.open += 1;
    socket.on("close", () => (seen.open -= 1));
    socket.on("message", (data) => {
      if (String(data).includes('"login"')) {
        seen.logins += 1;
        socket.send('{"type":"login-ok"}');
      }
    });
    if (dropOnceAfterMs !== undefined && connects === 1)
      setTimeout(() => socket.close(1001, "going away"), dropOnceAfterMs);
  });
  close = () => new Promise((resolve) => wss.close(() => resolve()));
  return { url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/?c={{client}}`, seen };
}

function plan(
  url: string,
  clients: number,
  reconnect: ReconnectPolicy | undefined,
  load: Partial<PlanSpec["load"]> = {},
): Omit<PlanSpec, "name"> {
  return {
    target: { protocol: "websocket", url },
    scenario: { kind: "login-storm", login: true, ...(reconnect ? { reconnect } : {}) },
    load: { clients, durationSec: 2, rampUpSec: 0, ...load },
  };
}

const reconnects = (snapshots: MetricSnapshot[]) => {
  const out: Record<string, number> = {};
  for (const s of snapshots)
    for (const [cause, n] of Object.entries(s.counters.reconnectsByCause ?? {})) out[cause] = (out[cause] ?? 0) + n;
  return out;
};

describe("reconnect policies", () => {
  it("immediately: every client the server drops comes back and logs in again, counted under cause server", async () => {
    const { url, seen } = await loginServer(500);
    const snapshots = await runPlan(plan(url, 6, { policy: "immediately" }));
    expect([...seen.connects.values()]).toEqual([2, 2, 2, 2, 2, 2]);
    expect(seen.logins).toBe(12);
    expect(reconnects(snapshots)).toEqual({ server: 6 });
    expect(total(snapshots, "loginsSucceeded")).toBe(12);
  });

  it("backoff with a small ceiling brings them back too", async () => {
    const { url, seen } = await loginServer(300);
    const snapshots = await runPlan(plan(url, 4, { policy: "backoff", backoff: { initialMs: 50, maxMs: 100 } }));
    expect([...seen.connects.values()]).toEqual([2, 2, 2, 2]);
    expect(reconnects(snapshots)).toEqual({ server: 4 });
  });

  it("never (the default): dropped clients stay gone", async () => {
    const { url, seen } = await loginServer(500);
    const snapshots = await runPlan(plan(url, 6, undefined));
    expect([...seen.connects.values()]).toEqual([1, 1, 1, 1, 1, 1]);
    expect(reconnects(snapshots)).toEqual({});
    expect(total(snapshots, "loginsSucceeded")).toBe(6);
  });

  it("maxAttempts: a client whose server is gone tries that often, then gives up", async () => {
    const { url, seen } = await loginServer(200);
    const server = close!;
    // The server stops listening at 100 ms and drops everyone at 200 ms: each client's attempts are refused.
    setTimeout(() => void server(), 100);
    close = undefined;
    const snapshots = await runPlan(
      plan(url, 3, { policy: "backoff", maxAttempts: 2, backoff: { initialMs: 20, maxMs: 40 } }),
    );
    expect(seen.connects.size).toBe(3);
    expect(reconnects(snapshots)).toEqual({ server: 6 });
    expect(total(snapshots, "connectionsFailed")).toBe(6);
  });
});

describe("reconnect storm", () => {
  it("drops half of 20 connected clients every second, and every dropped client comes back", async () => {
    const { url, seen } = await loginServer();
    const snapshots = await runPlan(
      plan(
        url,
        20,
        { policy: "immediately" },
        { durationSec: 4, shape: { kind: "reconnect-storm", everySec: 1, dropPercent: 50 } },
      ),
    );
    const stormDrops = snapshots.map((s) => s.counters.reconnectsByCause?.storm ?? 0);
    // Storms at about 1, 2 and 3 s: 10 each (one may land in the second before or after its boundary).
    expect(stormDrops.reduce((a, b) => a + b, 0)).toBe(30);
    const connects = [...seen.connects.values()].reduce((a, b) => a + b, 0);
    expect(connects).toBe(50);
    expect(seen.logins).toBe(50);
    expect(seen.connects.size).toBe(20);
  });
});
