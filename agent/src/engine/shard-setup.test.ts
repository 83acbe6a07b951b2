import { describe, expect, it } from "vitest";
import type { PlanSpec } from "@throng/protocol/plan";
import {
  agentCapacity,
  enginesForOpenFiles,
  MAX_ENGINES,
  openFileNote,
  raiseOpenFileLimit,
  type RaiseWays,
} from "./open-files";
import { descriptorBudget, guardDescriptors } from "./descriptor-guard";
import { claimShardBlock, fdWarning, loopbackSourceAddresses, portsPerSourceAddress, shardSetup } from "./shard-setup";
import { agentPortRange } from "../transports/local-ports";
import { causeOf, type Transport, type TransportEnd } from "../transports/transport";

const plan = (clients: number, url = "ws://127.0.0.1:7070/ws"): PlanSpec => ({
  name: "p",
  target: { protocol: "websocket", url },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients, durationSec: 10, rampUpSec: 0 },
});
const rooms = (clients: number, roomSize: number): PlanSpec => ({
  ...plan(clients),
  scenario: { kind: "movement-sync", roomSize, updateHz: 10 } as PlanSpec["scenario"],
});

describe("engine processes sized to the shard's clients under the open-file limit", () => {
  it("takes one engine per core while the clients fit, and says nothing", () => {
    expect(enginesForOpenFiles({ clients: 10 }, 2, 20_000)).toEqual({ engines: 2 });
    expect(enginesForOpenFiles({ clients: 39_488 }, 2, 20_000)).toEqual({ engines: 2 });
  });

  it("adds engines past limit − 256 clients each, and says so in one line", () => {
    // The reported crash: 100,000 clients on 2 engines of a 20,000 limit.
    const sized = enginesForOpenFiles({ clients: 100_000 }, 2, 20_000);
    expect(sized).toEqual({
      engines: 6,
      note: "note: 100,000 clients need 6 engine processes (up to 19,744 connections each under the open-file limit of 20,000; 2 cores)",
    });
    expect(enginesForOpenFiles({ clients: 200_000 }, 2, 20_000)).toMatchObject({ engines: 11 });
    expect(enginesForOpenFiles({ clients: 39_489 }, 2, 20_000)).toMatchObject({ engines: 3 });
    // A soft limit of 1,024 (many hosts): 768 connections per engine.
    expect(enginesForOpenFiles({ clients: 10_000 }, 8, 1_024)).toMatchObject({ engines: 14 });
  });

  it("counts whole rooms: a room never spans two engines", () => {
    // 19,744 per engine holds 987 rooms of 20 (19,740 players).
    expect(enginesForOpenFiles({ clients: 19_740 * 2, roomSize: 20 }, 1, 20_000)).toMatchObject({ engines: 2 });
    expect(enginesForOpenFiles({ clients: 19_740 * 2 + 20, roomSize: 20 }, 1, 20_000)).toMatchObject({ engines: 3 });
  });

  it("refuses a shard even 256 engines cannot hold, naming the limit and every way to raise it", () => {
    const sized = enginesForOpenFiles({ clients: 300_000 }, 2, 1_024);
    expect("refused" in sized && sized.refused).toMatch(
      /^300,000 clients do not fit this agent: at most 256 engine processes of 768 clients each \(open-file limit 1,024 per process, less 256 kept for the engine itself\) hold 196,608/,
    );
    for (const way of ["ulimit -n", "LimitNOFILE", "--ulimit nofile", "Helm chart"])
      expect("refused" in sized && sized.refused).toContain(way);
    expect(enginesForOpenFiles({ clients: MAX_ENGINES * 768 }, 2, 1_024)).toMatchObject({ engines: 256 });
    // A room larger than what one engine may hold cannot be placed at all.
    expect(enginesForOpenFiles({ clients: 2_000, roomSize: 1_000 }, 2, 1_024)).toHaveProperty("refused");
  });

  it("keeps one engine per core where the limit cannot be read", () => {
    expect(enginesForOpenFiles({ clients: 1_000_000 }, 4, undefined)).toEqual({ engines: 4 });
  });

  it("reports what the agent can hold: 256 engines, or the ones --engines fixes", () => {
    expect(agentCapacity(20_000)).toEqual({ openFileLimit: 20_000, clientsPerEngine: 19_744, maxEngines: 256 });
    expect(agentCapacity(1_024, 4)).toEqual({ openFileLimit: 1_024, clientsPerEngine: 768, maxEngines: 4 });
  });
});

describe("the shard's setup, the same for run and connect", () => {
  const host = { cores: 2, openFileLimit: 20_000 };

  it("sizes engines and picks loopback addresses from the shard's own clients", () => {
    const setup = shardSetup({ plan: plan(200_000), clients: 200_000, shardIndex: 0 }, {}, host);
    // 19,056 clients per address (Linux's default range, a quarter left to the kernel): 11 addresses.
    expect(portsPerSourceAddress(agentPortRange({ first: 32768, last: 60999 }))).toBe(19_056);
    expect(setup).toMatchObject({
      engines: 11,
      sourceAddresses: Array.from(
        { length: Math.ceil(200_000 / portsPerSourceAddress()) },
        (_, i) => `127.0.0.${i + 2}`,
      ),
    });
    expect("notes" in setup && setup.notes).toHaveLength(2);
  });

  it("gives each agent of a run on one host its own source addresses (shard k: 127.k.0.x)", () => {
    const second = shardSetup({ plan: plan(200_000), clients: 38_000, shardIndex: 1 }, {}, host);
    expect(second).toMatchObject({ engines: 2, sourceAddresses: ["127.1.0.2", "127.1.0.3"] });
    expect(loopbackSourceAddresses(plan(200_000), 38_000, 3, 19_056)).toEqual(["127.3.0.2", "127.3.0.3"]);
    // A shard small enough for kernel-chosen ports needs no address of its own.
    expect(loopbackSourceAddresses(plan(200_000), 8_000, 2)).toBeUndefined();
  });

  it("connects from the block the shard claimed on this host, and says when another shard held the first", async () => {
    const first = await claimShardBlock({ plan: plan(38_000), clients: 38_000, shardIndex: 0 }, {});
    const second = await claimShardBlock({ plan: plan(38_000), clients: 38_000, shardIndex: 0 }, {});
    try {
      expect(second!.index).not.toBe(first!.index);
      const setup = shardSetup({ plan: plan(38_000), clients: 38_000, shardIndex: 0 }, {}, host, second);
      expect(setup).toMatchObject({
        sourceAddresses: [`127.${second!.index}.0.2`, `127.${second!.index}.0.3`],
      });
      expect("notes" in setup && setup.notes.join("\n")).toMatch(/another run's shard on this host holds/);
    } finally {
      first!.release();
      second!.release();
    }
    // Kernel-chosen ports or the plan's own addresses: nothing to claim.
    expect(await claimShardBlock({ plan: plan(8_000), clients: 8_000, shardIndex: 0 }, {})).toBeUndefined();
    expect(
      await claimShardBlock({ plan: plan(38_000), clients: 38_000, shardIndex: 0 }, { sourceAddresses: ["127.9.0.2"] }),
    ).toBeUndefined();
  });

  it("spreads a big loopback plan over 127.0.0.x source addresses (the engine's own ports), and leaves others alone", () => {
    expect(loopbackSourceAddresses(plan(57_000), undefined, 0, 19_056)).toEqual([
      "127.0.0.2",
      "127.0.0.3",
      "127.0.0.4",
    ]);
    expect(loopbackSourceAddresses(plan(19_000), undefined, 0, 19_056)).toEqual(["127.0.0.2"]);
    expect(loopbackSourceAddresses(plan(10_000))).toBeUndefined();
    expect(loopbackSourceAddresses(plan(60_000, "ws://10.0.0.5:7070/ws"))).toBeUndefined();
    // KCP binds a UDP socket per client, as UDP does: more addresses only past one address's ports, from 127.0.0.1.
    const kcp = (clients: number): PlanSpec => ({
      ...plan(clients),
      target: { protocol: "kcp", host: "127.0.0.1", port: 7400 } as PlanSpec["target"],
    });
    expect(loopbackSourceAddresses(kcp(19_000), undefined, 0, 19_056)).toBeUndefined();
    expect(loopbackSourceAddresses(kcp(57_000), undefined, 0, 19_056)).toEqual(["127.0.0.1", "127.0.0.2", "127.0.0.3"]);
    // Past 255 addresses the count carries into the next octet, still on 127.0.0.0/8.
    expect(loopbackSourceAddresses(plan(260 * 19_056), undefined, 0, 19_056)?.at(-1)).toBe("127.0.1.5");
  });

  it("lets the flags win, warning when --engines leaves more clients per process than the limit holds", () => {
    const given = shardSetup(
      { plan: plan(100_000), clients: 100_000, shardIndex: 0 },
      { engines: 2, sourceAddresses: ["10.0.0.7"] },
      host,
    );
    expect(given).toMatchObject({ engines: 2, sourceAddresses: ["10.0.0.7"] });
    expect("notes" in given && given.notes[0]).toMatch(
      /^warning: each engine process opens up to 50000 connections but the open-file limit is 20000/,
    );
    expect(fdWarning(19_744, 20_000)).toBeUndefined();
    expect(shardSetup({ plan: rooms(20_000_000, 20), clients: 20_000_000, shardIndex: 0 }, {}, host)).toHaveProperty(
      "refused",
    );
  });
});

describe("raising the soft open-file limit to the hard one at start", () => {
  const ways = (
    soft: number,
    hard: number,
    native: () => number | string,
    prlimit: RaiseWays["prlimit"] = () => {
      throw new Error("no prlimit");
    },
  ) => {
    const limits = { soft, hard };
    return {
      native: () => {
        const result = native();
        if (typeof result === "number" && result >= 0) limits.soft = result;
        return result;
      },
      prlimit: (pid: number, limit: number) => {
        prlimit(pid, limit);
        limits.soft = limit;
      },
      limits: () => ({ ...limits }),
    } satisfies RaiseWays;
  };

  it("leaves a soft limit that is the hard one alone", () => {
    const raise = raiseOpenFileLimit(
      ways(20_000, 20_000, () => {
        throw new Error("not called");
      }),
    );
    expect(raise).toEqual({ before: 20_000, after: 20_000, hard: 20_000, how: "already" });
    expect(openFileNote(raise)).toBe("note: open-file limit 20,000 per process (the hard limit already)");
  });

  it("raises it with the native addon's setrlimit, and says so", () => {
    const raise = raiseOpenFileLimit(ways(1_024, 524_288, () => 524_288));
    expect(raise).toMatchObject({ before: 1_024, after: 524_288, how: "setrlimit" });
    expect(openFileNote(raise)).toBe(
      "note: open-file limit raised from 1,024 to 524,288 per process (setrlimit, native addon)",
    );
  });

  it("falls back to prlimit --pid when the addon is missing", () => {
    let asked: [number, number] | undefined;
    const raise = raiseOpenFileLimit(
      ways(
        1_024,
        4_096,
        () => "throng-io.node not loaded",
        (pid, limit) => {
          asked = [pid, limit];
        },
      ),
    );
    expect(asked).toEqual([process.pid, 4_096]);
    expect(openFileNote(raise)).toBe("note: open-file limit raised from 1,024 to 4,096 per process (prlimit --pid)");
  });

  it("warns, naming both failures and how to raise it, when neither way works", () => {
    const raise = raiseOpenFileLimit(ways(1_024, 4_096, () => -1));
    expect(raise).toMatchObject({ how: "failed", after: 1_024 });
    expect(openFileNote(raise)).toMatch(
      /^warning: open-file limit 1,024 per process, not raised to the hard 4,096 \(setrlimit: EPERM; prlimit: no prlimit\); raise the open-file limit/,
    );
  });
});

describe("an engine's descriptor budget", () => {
  const recording = (): Transport & { opened: number } => {
    const transport = {
      opened: 0,
      open: () => {
        transport.opened += 1;
        return { send: () => true, close: async () => {} };
      },
    };
    return transport;
  };

  it("lets limit − 256 connections through on top of the engine's own descriptors, refuses the next with cause limit, and reads the real count only near it", () => {
    let open = 40;
    let reads = 0;
    const budget = descriptorBudget(1_000, () => {
      reads++;
      return open;
    })!;
    // 40 of its own + 744 connections.
    expect(budget.max).toBe(784);
    const inner = recording();
    const guarded = guardDescriptors(inner, budget);
    const ends: TransportEnd[] = [];
    const events = { onOpen() {}, onMessage() {}, onEnd: (end: TransportEnd) => void ends.push(end) };
    for (let i = 0; i < 744; i++) guarded.open(events);
    expect(inner.opened).toBe(744);
    expect(reads).toBe(1);
    // An engine with many descriptors of its own (a script's workers) still keeps half the reserve free.
    expect(descriptorBudget(1_000, () => 500)!.max).toBe(872);
    open = 784;
    guarded.open(events);
    expect(inner.opened).toBe(744);
    // Closed connections free their place: the real count is read again and the next one goes through.
    open = 700;
    guarded.open(events);
    expect(inner.opened).toBe(745);
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        expect(ends).toHaveLength(1);
        expect(ends[0]!.opened).toBe(false);
        expect(causeOf(ends[0]!.error!)).toBe("limit");
        resolve();
      }),
    );
  });
});
