import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { causeOf } from "./transport";
import {
  agentPortRange,
  isPortTaken,
  kernelPortRange,
  LocalPorts,
  MAX_PORT_ATTEMPTS,
  PortLease,
  portSlice,
} from "./local-ports";

const atStart = () => 0;

describe("local port allocator", () => {
  it("binds only from the upper part of the kernel's range, leaving a quarter (at least 4,096 ports) to the kernel's own choice for every other connection on the host", () => {
    expect(agentPortRange({ first: 32768, last: 60999 })).toEqual({ first: 39826, last: 60999 });
    expect(agentPortRange({ first: 1024, last: 65535 })).toEqual({ first: 17152, last: 65535 });
    expect(agentPortRange({ first: 40000, last: 45000 })).toEqual({ first: 44096, last: 45000 });
  });

  it("cuts the range into disjoint slices that cover it, one per engine", () => {
    const range = { first: 32768, last: 60999 };
    const slices = [0, 1, 2].map((i) => portSlice(range, i, 3));
    expect(slices[0]!.first).toBe(32768);
    expect(slices[2]!.last).toBe(60999);
    for (let i = 1; i < 3; i++) expect(slices[i]!.first).toBe(slices[i - 1]!.last + 1);
    expect(() => portSlice({ first: 10, last: 11 }, 0, 3)).toThrow(/does not fit/);
  });

  it("walks its slice per address, wraps, and reuses a released port only after the others", () => {
    const ports = new LocalPorts({ first: 100, last: 102 }, new Set(), atStart);
    expect([ports.take("127.0.0.2"), ports.take("127.0.0.2"), ports.take("127.0.0.3")]).toEqual([100, 101, 100]);
    ports.release("127.0.0.2", 100);
    expect(ports.take("127.0.0.2")).toBe(102);
    expect(ports.take("127.0.0.2")).toBe(100);
    expect(ports.inUse("127.0.0.2")).toBe(3);
  });

  it("skips excluded ports and ports its own connections hold", () => {
    const ports = new LocalPorts({ first: 100, last: 103 }, new Set([101]), atStart);
    expect(ports.take("a")).toBe(100);
    expect(ports.take("a")).toBe(102);
    expect(ports.take("a")).toBe(103);
    ports.release("a", 102);
    expect(ports.take("a")).toBe(102);
  });

  it("reports exhaustion once per address with a message that says what to do, and recovers after a release", () => {
    const told: string[] = [];
    const ports = new LocalPorts({ first: 100, last: 101 }, new Set(), atStart, (message) => told.push(message));
    ports.take("127.0.0.2");
    ports.take("127.0.0.2");
    expect(ports.take("127.0.0.2")).toBeUndefined();
    expect(ports.take("127.0.0.2")).toBeUndefined();
    expect(told).toEqual([
      "no free local port on 127.0.0.2 in 100-101: add --source-addresses (e.g. 127.0.0.2,127.0.0.3) to spread the clients",
    ]);
    const lease = new PortLease(ports, "127.0.0.2");
    const failed = lease.next();
    expect(failed).toBeInstanceOf(Error);
    expect(causeOf(failed as Error)).toBe("no-local-port");
    ports.release("127.0.0.2", 101);
    expect(lease.next()).toEqual({ localAddress: "127.0.0.2", localPort: 101 });
  });

  it("a lease gives its port back on each new attempt and stops retrying after MAX_PORT_ATTEMPTS", () => {
    const ports = new LocalPorts({ first: 100, last: 199 }, new Set(), atStart);
    const lease = new PortLease(ports, "a");
    const inUse = Object.assign(new Error("bind EADDRINUSE"), { code: "EADDRINUSE", syscall: "bind" });
    for (let attempt = 1; attempt <= MAX_PORT_ATTEMPTS; attempt++) {
      expect(lease.next()).toEqual({ localAddress: "a", localPort: 99 + attempt });
      expect(ports.inUse("a")).toBe(1);
      expect(lease.retries(inUse)).toBe(attempt < MAX_PORT_ATTEMPTS);
    }
    lease.release();
    expect(ports.inUse("a")).toBe(0);
  });

  it("treats a bound port in use and a 4-tuple in use as taken, and nothing else", () => {
    expect(isPortTaken(Object.assign(new Error("x"), { code: "EADDRINUSE", syscall: "bind" }))).toBe(true);
    expect(isPortTaken(Object.assign(new Error("x"), { code: "EADDRNOTAVAIL", syscall: "connect" }))).toBe(true);
    expect(isPortTaken(Object.assign(new Error("x"), { code: "EADDRNOTAVAIL", syscall: "bind" }))).toBe(false);
    expect(isPortTaken(Object.assign(new Error("x"), { code: "ECONNREFUSED", syscall: "connect" }))).toBe(false);
    expect(isPortTaken(undefined)).toBe(false);
  });

  it("reads the kernel's ephemeral range, and falls back to Linux's default", () => {
    const dir = mkdtempSync(join(tmpdir(), "ports-"));
    writeFileSync(join(dir, "range"), "40000\t50000\n");
    expect(kernelPortRange(join(dir, "range"))).toEqual({ first: 40000, last: 50000 });
    expect(kernelPortRange(join(dir, "missing"))).toEqual({ first: 32768, last: 60999 });
  });
});
