import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { runOnEngines } from "./engines";
import { assignmentFor } from "../testing/assignment";

// The built agent's engine processes (dist/throng-engine.mjs beside the CLI bundle), as `connect` forks them.
const cli = fileURLToPath(new URL("../../dist/throng-agent.mjs", import.meta.url));

describe("a shard whose engine processes come after the run's end", () => {
  it("is said to have expired (no load), not to have finished with no seconds", async () => {
    // Ended a minute ago: engines forked on a busy host after the planned end are in the same place.
    const assignment = assignmentFor(
      {
        target: { protocol: "websocket", url: "ws://127.0.0.1:9/" },
        scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
        load: { clients: 4, durationSec: 1, rampUpSec: 0 },
      } as Parameters<typeof assignmentFor>[0],
      Date.now() - 60_000,
    );
    const seconds: number[] = [];
    const result = await runOnEngines(assignment, {
      engines: 2,
      enginesChosen: true,
      entry: cli,
      onSnapshot: (s) => seconds.push(s.seq),
    });
    expect(seconds).toEqual([]);
    expect(result).toEqual({ lastSeq: -1, skipped: "expired" });
  }, 60_000);
});
