import { describe, expect, it } from "vitest";
import { lastRunSeq, lostSeconds, type LostSecondsInput } from "./lost-seconds";

const seqs = (from: number, to: number) => new Set(Array.from({ length: to - from + 1 }, (_, i) => from + i));
const shard = (agentId: string, state: string, lastSeq: number | null = null, role = "load") => ({
  agentId,
  role,
  state,
  lastSeq,
});
const run = (input: Partial<LostSecondsInput> & Pick<LostSecondsInput, "shards" | "stored">) =>
  lostSeconds({ lastRunSeq: 29, ...input });

describe("seconds a run should hold and does not, per agent", () => {
  it("names nothing when every shard's seconds up to its last are stored", () => {
    expect(
      run({
        shards: [shard("a", "finished", 29), shard("b", "failed", 12)],
        stored: new Map([
          ["a", seqs(0, 29)],
          ["b", seqs(0, 12)],
        ]),
      }),
    ).toEqual([]);
  });

  it("names the seconds of a finished shard that never arrived (the holes up to its lastSeq)", () => {
    const stored = new Map([["a", new Set([...seqs(0, 12), ...seqs(18, 29)])]]);
    const [lost] = run({ shards: [shard("a", "finished", 29)], stored, names: new Map([["a", "rig-2"]]) });
    expect(lost).toMatchObject({ agentId: "a", ranges: [[13, 17]], count: 5 });
    expect(lost!.message).toBe(
      "agent rig-2 (a) lost seconds 13–17 (5 s): they never arrived, though the agent reported its shard finished at second 29",
    );
  });

  it("names a lost shard's seconds from its last stored one to the run's last second", () => {
    const [lost] = run({ shards: [shard("b", "lost")], stored: new Map([["b", seqs(0, 12)]]) });
    expect(lost).toMatchObject({ ranges: [[13, 29]], count: 17 });
    expect(lost!.message).toMatch(
      /^agent b lost seconds 13–29 \(17 s\): none of them arrived before its agent was lost/,
    );
  });

  it("counts a silent shard's seconds only up to the last second that has happened", () => {
    expect(
      run({ shards: [shard("c", "started")], stored: new Map([["c", seqs(0, 3)]]), lastRunSeq: 5 })[0]!.ranges,
    ).toEqual([[4, 5]]);
  });

  it("starts a late shard at its first stored second, and names every hole", () => {
    const stored = new Map([["a", new Set([5, 6, 8, 10])]]);
    expect(run({ shards: [shard("a", "finished", 11)], stored })[0]!.message).toMatch(/lost seconds 7, 9, 11 \(3 s\)/);
  });

  it("leaves out watchers and shards stopped before they started", () => {
    expect(run({ shards: [shard("w", "lost", null, "watch"), shard("a", "finished", -1)], stored: new Map() })).toEqual(
      [],
    );
  });

  it("the run's last second: the planned one, or the last whole second before an early end", () => {
    expect(lastRunSeq(10_000, 30, 60_000)).toBe(29);
    expect(lastRunSeq(10_000, 30, 15_500)).toBe(4);
  });
});
