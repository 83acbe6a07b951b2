import { describe, expect, it } from "vitest";
import { exactValue, pixelColumns, type Columns } from "./pixel-columns";

/** An hour of one-second rows from `start`: a flat line at 10 with `spikes` (second → value), and a ramp. */
function hour(start: number, spikes: Record<number, number | null> = {}): (number | null)[][] {
  const xs = Array.from({ length: 3600 }, (_, index) => start + index);
  const flat = xs.map((_, index) => (index in spikes ? spikes[index]! : 10));
  const ramp = xs.map((_, index) => index);
  return [xs, flat, ramp];
}

/** The drawn rows as plain arrays, to read them. */
const cut = (...args: Parameters<typeof pixelColumns>) => pixelColumns(...args) as (number | null)[][];

describe("pixelColumns", () => {
  it("draws an hour on a 1,000 px plot as at most two rows per pixel column", () => {
    const full = hour(1000);
    const drawn = cut(full, [1000, 4599], 1000);
    expect(drawn[0]!.length).toBeLessThanOrEqual(2000);
    expect(drawn[0]!.length).toBeGreaterThan(1000);
    // Every row is a real second of the run, ascending.
    for (let row = 1; row < drawn[0]!.length; row++) expect(drawn[0]![row]!).toBeGreaterThan(drawn[0]![row - 1]!);
    expect(drawn[0]![0]).toBe(1000);
    expect(drawn[0]!.at(-1)).toBe(4599);
  });

  it("keeps a one-second spike and a one-second dip at their height", () => {
    const drawn = cut(hour(1000, { 1801: 500, 2702: 0 }), [1000, 4599], 1000);
    expect(Math.max(...(drawn[1] as number[]))).toBe(500);
    expect(Math.min(...(drawn[1] as number[]))).toBe(0);
    // The ramp's ends are still its ends: a column's low and high, the earlier first.
    expect(drawn[2]![0]).toBe(0);
    expect(drawn[2]!.at(-1)).toBe(3599);
    for (let row = 1; row < drawn[2]!.length; row++)
      expect(drawn[2]![row]!).toBeGreaterThanOrEqual(drawn[2]![row - 1]!);
  });

  it("gives a line null in a column where it has no value, and its values where it has some", () => {
    const spikes: Record<number, null> = {};
    for (let second = 0; second < 1800; second++) spikes[second] = null;
    const drawn = cut(hour(0, spikes), [0, 3599], 1000);
    expect(drawn[1]![0]).toBeNull();
    expect(drawn[1]!.at(-1)).toBe(10);
  });

  it("draws every second when they fit in two a pixel (a zoomed range, a short run)", () => {
    const full = hour(1000);
    const tenMinutes: Columns = full.map((column) => column.slice(0, 600));
    expect(pixelColumns(tenMinutes, [1000, 1599], 1000)).toBe(tenMinutes);
    expect(pixelColumns(full, [1000, 4599], 1800)).toBe(full);
    expect(pixelColumns(full, null, 1000)).toBe(full);
  });
});

describe("exactValue", () => {
  it("reads the legend's value at the drawn row's second from the full columns, not the column's low or high", () => {
    const full = hour(1000, { 1801: 500 });
    const drawn = cut(full, [1000, 4599], 1000);
    const row = drawn[0]!.findIndex((x) => x! >= 2801);
    const second = drawn[0]![row]!;
    expect(exactValue(drawn, full, 1, row)).toBe(full[1]![second - 1000]);
    expect(exactValue(drawn, full, 2, row)).toBe(second - 1000);
    // The row holding the spike's column high: its second reads the full data there.
    const spikeRow = drawn[1]!.indexOf(500);
    const spikeSecond = drawn[0]![spikeRow]!;
    expect(exactValue(drawn, full, 1, spikeRow)).toBe(spikeSecond === 2801 ? 500 : 10);
    expect(exactValue(drawn, full, 1, null)).toBeNull();
    expect(exactValue(full, full, 1, 1801)).toBe(500);
  });
});
