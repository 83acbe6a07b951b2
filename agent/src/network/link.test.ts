import { describe, expect, it } from "vitest";
import { seededRandom } from "../engine/seeded-random";
import { DROPPED, emptyTally, Link, linkConditions, MAX_BACKLOG_MS, type LinkConditions } from "./link";

const none: LinkConditions = { delayMs: 0, jitterMs: 0, loss: 0, duplicate: 0, reorder: 0, bytesPerMs: 0 };
const link = (conditions: Partial<LinkConditions>, seed = "s") => {
  const tally = emptyTally();
  return { link: new Link({ ...none, ...conditions }, seededRandom(seed), tally), tally };
};

describe("a cohort's link decides each packet", () => {
  it("applies the plan's conditions in the directions it names", () => {
    expect(Object.keys(linkConditions({ name: "a", share: 0.1, delayMs: 5, direction: "up" }))).toEqual(["up"]);
    expect(Object.keys(linkConditions({ name: "a", share: 0.1, delayMs: 5 }))).toEqual(["up", "down"]);
    expect(
      linkConditions({ name: "a", share: 0.1, lossPercent: 5, bandwidthKbps: 800, direction: "down" }).down,
    ).toMatchObject({ loss: 0.05, bytesPerMs: 100 });
  });

  it("holds each packet the delay, and with jitter never lets a packet leave before the one before it", () => {
    const { link: jittery } = link({ delayMs: 50, jitterMs: 40 });
    let last = 0;
    const delays: number[] = [];
    for (let i = 0; i < 1000; i += 1) {
      const at = jittery.decide(i, 100);
      expect(at).toBeGreaterThanOrEqual(last);
      delays.push(at - i);
      last = at;
    }
    expect(Math.min(...delays)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...delays)).toBeLessThanOrEqual(90 + 1);
  });

  it("drops about the loss asked, the same packets for the same seed", () => {
    const run = () => {
      const { link: lossy, tally } = link({ loss: 0.1 }, "client-7");
      const fates = Array.from({ length: 10_000 }, (_, i) => lossy.decide(i, 100) === DROPPED);
      return { fates, tally };
    };
    const first = run();
    expect(first.tally.dropped / first.tally.packets).toBeGreaterThan(0.09);
    expect(first.tally.dropped / first.tally.packets).toBeLessThan(0.11);
    expect(run().fates).toEqual(first.fates);
  });

  it("lets a reordered packet skip the delay, overtaking the ones held, and duplicates as asked", () => {
    const { link: shuffling, tally } = link({ delayMs: 30, reorder: 0.2, duplicate: 0.05 });
    const times = Array.from({ length: 2000 }, (_, i) => shuffling.decide(i, 100));
    const overtaking = times.filter((at, i) => at === i).length;
    expect(overtaking).toBe(tally.reordered);
    expect(tally.reordered / tally.packets).toBeGreaterThan(0.15);
    expect(tally.duplicated / tally.packets).toBeGreaterThan(0.03);
  });

  it("sends no faster than the link's rate, and drops what would wait more than a second for it", () => {
    // 100 bytes per ms; 1,000-byte packets offered all at once take 10 ms each.
    const { link: slow, tally } = link({ bytesPerMs: 100 });
    const times = Array.from({ length: 150 }, () => slow.decide(0, 1000));
    expect(times.slice(0, 3)).toEqual([10, 20, 30]);
    const kept = times.filter((at) => at !== DROPPED);
    expect(Math.max(...kept)).toBeLessThanOrEqual(MAX_BACKLOG_MS + 10);
    expect(tally.overflowed).toBe(150 - kept.length);
    expect(tally.overflowed).toBeGreaterThan(0);
  });
});
