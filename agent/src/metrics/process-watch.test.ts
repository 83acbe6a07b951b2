import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { ServerWatchSnapshot } from "@throng/protocol/snapshot";
import { parseNetDev, parseStatCpuTicks, resolveWatchedProcess, watchProcess } from "./process-watch";

describe("watching a server process from /proc", () => {
  it("reads CPU ticks and threads from a stat line whose name holds spaces and parentheses", () => {
    const stat = "1234 (my (odd) srv) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 7 0 100 1000 50";
    expect(parseStatCpuTicks(stat)).toEqual({ ticks: 300, threads: 7 });
  });

  it("sums packets and bytes over every interface", () => {
    const text = [
      "Inter-|   Receive                                                |  Transmit",
      " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed",
      "    lo: 1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0",
      "  eth0: 500       5    0    0    0     0          0         0     200       2    0    0    0     0       0          0",
    ].join("\n");
    expect(parseNetDev(text)).toEqual({ bytesIn: 1500, packetsIn: 15, bytesOut: 1200, packetsOut: 12 });
  });

  it("measures a busy process's CPU (up to one core; less when the machine is shared) and memory", async () => {
    const busy = spawn(process.execPath, ["-e", "const end = Date.now() + 5000; while (Date.now() < end) {}"]);
    try {
      await new Promise((resolve) => busy.once("spawn", resolve));
      const watcher = watchProcess(busy.pid!);
      await new Promise((resolve) => setTimeout(resolve, 1_000)); // the sampling interval itself
      const sample = watcher.sample();
      expect(ServerWatchSnapshot.safeParse(sample).success).toBe(true);
      expect(sample.cpuPercent).toBeGreaterThan(5);
      expect(sample.cpuPercent).toBeLessThan(110);
      expect(sample.rssBytes).toBeGreaterThan(1_000_000);
    } finally {
      busy.kill("SIGKILL");
    }
  });
});

describe("choosing the process to watch", () => {
  it("names the flag and what to do when the pid or name matches nothing, or the name matches several", () => {
    const flags = { pid: "--watch-pid", name: "--watch-name" };
    expect(resolveWatchedProcess({ pid: 2 ** 31 - 1 }, flags)).toEqual({
      error: expect.stringMatching(/^no process with pid 2147483647 \(--watch-pid\)/),
    });
    expect(resolveWatchedProcess({ name: "no-such-server-7f3a" }, flags)).toEqual({
      error: expect.stringContaining(`no process named "no-such-server-7f3a" found (--watch-name)`),
    });
    expect(resolveWatchedProcess({ pid: 1, name: "x" }, flags)).toEqual({
      error: "give --watch-pid or --watch-name, not both",
    });
    expect(resolveWatchedProcess({})).toEqual({ error: "give --pid <pid> or --name <process-name>" });
    expect(resolveWatchedProcess({ pid: process.pid })).toEqual({ pid: process.pid });
  });

  it("refuses an ambiguous name and finds a unique one", async () => {
    const tag = `throng-watch-test-${process.pid}`;
    const spawnIdle = () => spawn(process.execPath, ["-e", "setTimeout(() => {}, 10000)", tag]);
    const first = spawnIdle();
    try {
      await new Promise((resolve) => first.once("spawn", resolve));
      expect(resolveWatchedProcess({ name: tag })).toEqual({ pid: first.pid });
      const second = spawnIdle();
      try {
        await new Promise((resolve) => second.once("spawn", resolve));
        expect(resolveWatchedProcess({ name: tag })).toEqual({
          error: expect.stringMatching(/^2 processes match .*pass --pid to choose one$/),
        });
      } finally {
        second.kill("SIGKILL");
      }
    } finally {
      first.kill("SIGKILL");
    }
  });
});
