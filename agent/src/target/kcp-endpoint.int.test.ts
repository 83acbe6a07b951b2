import { describe, expect, it } from "vitest";
import { kcpTestServerBinary, runKcpGoClients } from "../testing/kcp-go";
import { merged, runPlan, total } from "../testing/assignment";
import { useReferenceTarget } from "../testing/reference-target.test-support";

// The reference target's KCP endpoint (`throng-agent target --kcp-port`): the agent's scenarios against it, and
// xtaci/kcp-go's own client against it (Throng's KCP on the server's side).

const startTestTarget = useReferenceTarget();

describe("the reference target over KCP", () => {
  it("answers ping-pong's pings with its pongs (matched without a match rule) and relays movement-sync's moves to the room", async () => {
    const target = await startTestTarget({ port: 0, kcp: { port: 0 } });
    const pings = await runPlan({
      target: { protocol: "kcp", host: "127.0.0.1", port: target.kcpPort! },
      scenario: { kind: "ping-pong", intervalMs: 50, messageBytes: 64 },
      load: { clients: 5, durationSec: 1, rampUpSec: 0 },
    });
    expect(merged(pings, "rttUs")!.totalCount).toBeGreaterThan(5 * 20 * 0.6);
    expect(total(pings, "errors")).toBe(0);

    const moves = await runPlan({
      target: { protocol: "kcp", host: "127.0.0.1", port: target.kcpPort!, mode: "fast3" },
      scenario: { kind: "movement-sync", roomSize: 3, updateHz: 20 },
      load: { clients: 6, durationSec: 2, rampUpSec: 0 },
    });
    expect(total(moves, "broadcastsReceived") / total(moves, "broadcastsExpected")).toBeGreaterThan(0.95);
    expect(total(moves, "lost") + total(moves, "outOfOrder") + total(moves, "duplicates")).toBe(0);
  });

  it(
    "serves kcp-go's own client: every ping it sends is echoed",
    async () => {
      await kcpTestServerBinary();
      const target = await startTestTarget({ port: 0, kcp: { port: 0, mode: "fast" } });
      const result = await runKcpGoClients({
        port: target.kcpPort!,
        clients: 5,
        intervalMs: 50,
        durationSec: 2,
        bytes: 64,
        tuning: { mode: "fast" },
      });
      expect(result.sent).toBeGreaterThan(5 * 40 * 0.6);
      expect(result.received + result.unanswered).toBe(result.sent);
      expect(result.unanswered).toBeLessThanOrEqual(5);
    },
    10 * 60_000,
  );
});
