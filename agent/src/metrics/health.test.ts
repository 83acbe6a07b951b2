import { describe, expect, it } from "vitest";
import { closeSync, openSync } from "node:fs";
import { createHealthSampler, openFileCount, saturationReason } from "./health";

describe("agent health", () => {
  it("samples open descriptors and the limit, and says whether it is saturated", () => {
    const sampler = createHealthSampler();
    const health = sampler.sample();
    sampler.stop();
    expect(health.openFds).toBeGreaterThan(2);
    expect(health.fdLimit).toBeGreaterThan(health.openFds!);
    expect(typeof health.saturated).toBe("boolean");
  });

  it("counts descriptors as they open and close", () => {
    const before = openFileCount()!;
    const fds = Array.from({ length: 50 }, () => openSync("/dev/null", "r"));
    const during = openFileCount()!;
    for (const fd of fds) closeSync(fd);
    expect(during - before).toBe(50);
    expect(openFileCount()).toBe(before);
  });

  it("names why the agent is the bottleneck: CPU, event-loop delay or descriptors", () => {
    const base = { cpuPercent: 10, eventLoopP99Ms: 1, rssBytes: 1, openFds: 10, fdLimit: 20_000 };
    expect(saturationReason(base)).toBeUndefined();
    expect(saturationReason({ ...base, cpuPercent: 97 })).toMatch(/CPU/);
    expect(saturationReason({ ...base, eventLoopP99Ms: 80 })).toMatch(/event loop/);
    expect(saturationReason({ ...base, openFds: 19_500 })).toMatch(/file descriptors/);
  });
});
