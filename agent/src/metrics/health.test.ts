import { describe, expect, it } from "vitest";
import { closeSync, openSync } from "node:fs";
import type { AgentHealth } from "@throng/protocol/snapshot";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  cpuTimes,
  createHealthSampler,
  createSaturationJudge,
  openFileCount,
  openFileLimits,
  stealPercent,
} from "./health";

const quiet: AgentHealth = { cpuPercent: 10, eventLoopP99Ms: 1, rssBytes: 1, openFds: 10, fdLimit: 20_000 };

/** Judges a run of seconds (whole unless a length is given) and returns each second's reason. */
function judgeSeconds(
  seconds: (Partial<AgentHealth> & { ms?: number })[],
  cores = 1,
  ownDescriptors = 0,
): (string | undefined)[] {
  const judge = createSaturationJudge(cores, ownDescriptors);
  return seconds.map(({ ms, ...reading }) => judge.judge({ ...quiet, ...reading }, ms ?? 1_000));
}

describe("agent health", () => {
  it("samples open descriptors and the limit, and says whether it is saturated", () => {
    const sampler = createHealthSampler();
    const health = sampler.sample();
    sampler.stop();
    expect(health.openFds).toBeGreaterThan(2);
    expect(health.fdLimit).toBeGreaterThan(health.openFds!);
    expect(typeof health.saturated).toBe("boolean");
  });

  it("reports the event loop's longest hold, which one stall among a second's samples leaves out of the p99", async () => {
    const sampler = createHealthSampler();
    // A hundred quiet samples (10 ms apart), then the loop held 1.2 s, as a stopped or swapped-out process holds it.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const holdUntil = Date.now() + 1_200;
    while (Date.now() < holdUntil) {
      // held: no timer fires until this returns
    }
    // Let the monitor's timer fire once more, so the hold is recorded as one late sample.
    await new Promise((resolve) => setTimeout(resolve, 20));
    const health = sampler.sample();
    sampler.stop();
    expect(health.eventLoopMaxMs).toBeGreaterThanOrEqual(1_150);
    expect(health.eventLoopMaxMs).toBeGreaterThan(health.eventLoopP99Ms);
  });

  it("counts descriptors as they open and close", () => {
    const before = openFileCount()!;
    const fds = Array.from({ length: 50 }, () => openSync("/dev/null", "r"));
    const during = openFileCount()!;
    for (const fd of fds) closeSync(fd);
    expect(during - before).toBe(50);
    expect(openFileCount()).toBe(before);
  });
});

describe("open-file limits", () => {
  it("reads the soft and hard limits from /proc/self/limits, unlimited as Infinity", () => {
    const dir = mkdtempSync(join(tmpdir(), "limits-"));
    const file = (line: string) => {
      const path = join(dir, `${Math.random()}`);
      writeFileSync(
        path,
        `Limit                     Soft Limit           Hard Limit           Units     \nMax processes             95154                95154                processes \n${line}\n`,
      );
      return path;
    };
    expect(
      openFileLimits(file("Max open files            1024                 524288               files     ")),
    ).toEqual({ soft: 1024, hard: 524288 });
    expect(
      openFileLimits(file("Max open files            1024                 unlimited            files     ")),
    ).toEqual({ soft: 1024, hard: Infinity });
    expect(openFileLimits(join(dir, "missing"))).toBeUndefined();
    expect(openFileLimits()!.soft).toBeGreaterThan(0);
  });
});

describe("saturation is earned: whole seconds, held for 3 s in a row", () => {
  it("flags CPU from the third whole second in a row at 90% of a core on, saying the figure and the window", () => {
    const reasons = judgeSeconds([
      { cpuPercent: 95 },
      { cpuPercent: 97 },
      { cpuPercent: 97 },
      { cpuPercent: 99 },
      { cpuPercent: 20 },
    ]);
    expect(reasons).toEqual([
      undefined,
      undefined,
      "CPU ≥ 90% of a core for 3 s (97%)",
      "CPU ≥ 90% of a core for 4 s (99%)",
      undefined,
    ]);
  });

  it("never flags a partial second (the run's closing 7 ms at 97% CPU), and a partial second does not break a window", () => {
    expect(judgeSeconds([{ cpuPercent: 97, ms: 7 }])).toEqual([undefined]);
    expect(judgeSeconds([{ cpuPercent: 97 }, { cpuPercent: 97 }, { cpuPercent: 97, ms: 7 }])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    expect(
      judgeSeconds([{ cpuPercent: 97, ms: 400 }, { cpuPercent: 97 }, { cpuPercent: 97 }, { cpuPercent: 97 }]).at(-1),
    ).toMatch(/for 3 s/);
  });

  it("does not flag one or two noisy seconds of event-loop delay, and a quiet second starts the window again", () => {
    expect(
      judgeSeconds([
        { eventLoopP99Ms: 80 },
        { eventLoopP99Ms: 40 },
        {},
        { eventLoopP99Ms: 80 },
        { eventLoopP99Ms: 80 },
      ]),
    ).toEqual(Array(5).fill(undefined));
    expect(judgeSeconds([{ eventLoopP99Ms: 80 }, { eventLoopP99Ms: 40 }, { eventLoopP99Ms: 30 }]).at(-1)).toBe(
      "event loop p99 delay ≥ 25 ms for 3 s (30 ms)",
    );
  });

  it("names descriptors at the limit less the engine's reserve (not an engine sized near it), and judges CPU against the cores it was given", () => {
    expect(judgeSeconds(Array(3).fill({ openFds: 19_744 })).at(-1)).toBe(
      "file descriptors at the limit less the 256 kept for the engine for 3 s (19744 of 20000)",
    );
    // An engine sized to 19,500 clients of its 19,744 holds them all: not a limit it hit.
    expect(judgeSeconds(Array(3).fill({ openFds: 19_500 })).at(-1)).toBeUndefined();
    // Its own 30 descriptors (stdio, IPC, epoll) come on top of its connections' 19,744.
    expect(judgeSeconds(Array(3).fill({ openFds: 19_770 }), 1, 30).at(-1)).toBeUndefined();
    expect(judgeSeconds(Array(3).fill({ openFds: 19_774 }), 1, 30).at(-1)).toMatch(/^file descriptors at the limit/);
    expect(judgeSeconds(Array(3).fill({ cpuPercent: 150 }), 2).at(-1)).toBeUndefined();
    expect(judgeSeconds(Array(3).fill({ cpuPercent: 185 }), 2).at(-1)).toBe("CPU ≥ 90% of its 2 cores for 3 s (185%)");
  });

  it("in the sampler: a 7 ms closing interval is never saturated, whatever its CPU", () => {
    const sampler = createHealthSampler();
    const started = performance.now();
    while (performance.now() - started < 20) {
      // Busy: the interval's CPU is near 100% of a core.
    }
    const health = sampler.sample(7);
    sampler.stop();
    expect(health.saturated).toBe(false);
  });
});

describe("host CPU steal", () => {
  const stat = (steal: number, idle: number) =>
    `cpu  1000 0 500 ${idle} 10 0 5 ${steal} 0 0\ncpu0 1000 0 500 ${idle} 10 0 5 ${steal} 0 0\nintr 1 2 3\n`;

  it("is the steal column's share of all CPU time between two readings of /proc/stat", () => {
    expect(cpuTimes(stat(30, 8_455))).toEqual({ steal: 30, total: 10_000 });
    expect(stealPercent(cpuTimes(stat(30, 8_455)), cpuTimes(stat(80, 8_905)))).toBe(10);
    expect(stealPercent(cpuTimes(stat(30, 8_455)), cpuTimes(stat(30, 8_455)))).toBeUndefined();
    expect(cpuTimes("intr 1 2 3")).toBeUndefined();
  });

  it("goes into health every second, and is absent where /proc/stat cannot be read", () => {
    const readings = [stat(0, 8_485), stat(25, 8_960), stat(25, 9_460)];
    const sampler = createHealthSampler({ procStat: () => readings.shift() });
    expect(sampler.sample(1_000).stealPercent).toBe(5);
    expect(sampler.sample(1_000).stealPercent).toBe(0);
    // No reading: no figure, rather than a made-up zero.
    expect(sampler.sample(1_000).stealPercent).toBeUndefined();
    sampler.stop();
    const none = createHealthSampler({ procStat: () => undefined });
    expect(none.sample(1_000).stealPercent).toBeUndefined();
    none.stop();
  });
});
