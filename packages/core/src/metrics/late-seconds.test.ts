import { describe, expect, it } from "vitest";
import { createLateSeconds } from "./late-seconds";

describe("late seconds: a snapshot stored for a run that had already closed", () => {
  it("asks once per organisation for the runs of one tick, and reports a closed run once a second however many of its snapshots arrive", async () => {
    const asked: string[][] = [];
    const reported: string[] = [];
    let now = 0;
    const late = createLateSeconds({
      listEnded: async (_orgId, runIds) => {
        asked.push([...runIds]);
        return runIds.filter((id) => id.startsWith("closed"));
      },
      onLate: async (_orgId, runId) => void reported.push(runId),
      now: () => now,
    });
    await Promise.all([
      late.stored("o1", "open-1"),
      late.stored("o1", "closed-1"),
      late.stored("o1", "closed-1"),
      late.stored("o1", "open-1"),
    ]);
    expect(asked).toEqual([["open-1", "closed-1"]]);
    expect(reported).toEqual(["closed-1"]);
    now = 500;
    await late.stored("o1", "closed-1");
    expect(reported).toEqual(["closed-1"]);
    now = 1_500;
    await late.stored("o1", "closed-1");
    expect(reported).toEqual(["closed-1", "closed-1"]);
  });

  it("fails the snapshot (no ack, so the agent sends it again) when the check cannot be made", async () => {
    const late = createLateSeconds({
      listEnded: async () => Promise.reject(new Error("database down")),
      onLate: async () => {},
    });
    await expect(late.stored("o1", "r1")).rejects.toThrow("database down");
  });
});
