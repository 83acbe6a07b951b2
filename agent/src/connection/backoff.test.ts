import { describe, expect, it } from "vitest";
import { backoffDelay, DEFAULT_BACKOFF } from "./backoff";

describe("reconnect backoff (PROTOCOL.md §9)", () => {
  it("doubles the ceiling from 500 ms and caps it at 15 s", () => {
    const highest = (attempt: number) => backoffDelay(attempt, { ...DEFAULT_BACKOFF, random: () => 0.999_999 });
    expect([0, 1, 2, 3, 4, 5, 6, 50].map(highest)).toEqual([499, 999, 1_999, 3_999, 7_999, 14_999, 14_999, 14_999]);
  });

  it("uses full jitter: any delay from zero up to the ceiling", () => {
    expect(backoffDelay(3, { ...DEFAULT_BACKOFF, random: () => 0 })).toBe(0);
    expect(backoffDelay(3, { ...DEFAULT_BACKOFF, random: () => 0.5 })).toBe(2_000);
  });
});
