import { describe, expect, it } from "vitest";
import { seededRandom } from "../engine/seeded-random";
import {
  CMD_ACK,
  CMD_PUSH,
  CMD_WASK,
  CMD_WINS,
  DEAD_LINK_SENDS,
  Kcp,
  KcpMessageSizeError,
  KcpStats,
  type KcpConfig,
} from "./kcp";

const BASE: KcpConfig = {
  conv: 0x01020304,
  mtu: 1400,
  sendWindow: 32,
  receiveWindow: 32,
  nodelay: false,
  intervalMs: 30,
  resend: 2,
  nc: true,
  stream: false,
  ackNoDelay: false,
};

interface Header {
  conv: number;
  cmd: number;
  frg: number;
  wnd: number;
  ts: number;
  sn: number;
  una: number;
  len: number;
}

/** Every segment header in a datagram, read by hand from the specification's layout (little-endian). */
function headers(datagram: Buffer): Header[] {
  const out: Header[] = [];
  for (let at = 0; at + 24 <= datagram.length; ) {
    const len = datagram.readUInt32LE(at + 20);
    out.push({
      conv: datagram.readUInt32LE(at),
      cmd: datagram[at + 4]!,
      frg: datagram[at + 5]!,
      wnd: datagram.readUInt16LE(at + 6),
      ts: datagram.readUInt32LE(at + 8),
      sn: datagram.readUInt32LE(at + 12),
      una: datagram.readUInt32LE(at + 16),
      len,
    });
    at += 24 + len;
  }
  return out;
}

/** One end of a simulated link: its KCP, what it delivered, and every datagram it sent. */
interface End {
  kcp: Kcp;
  /** When its timer is set for, as the transport sets it from wakeAt after every event. */
  wake: number;
  stats: KcpStats;
  delivered: Buffer[];
  sent: Buffer[];
}

/**
 * Two KCPs joined by a simulated network on a simulated clock: each datagram arrives `delayMs` later unless `drop`
 * says otherwise; each end is flushed whenever its wakeAt says so. No sockets, no real time.
 */
function link(
  config: Partial<KcpConfig> & { peer?: Partial<KcpConfig> } = {},
  network: { delayMs?: number; drop?: (from: "a" | "b", datagram: Buffer) => boolean } = {},
) {
  const { peer, ...own } = config;
  let now = 1_000;
  const inFlight: { at: number; to: "a" | "b"; data: Buffer }[] = [];
  const end = (name: "a" | "b", settings: KcpConfig): End => {
    const stats = new KcpStats();
    const self: End = {
      wake: Infinity,
      stats,
      delivered: [],
      sent: [],
      kcp: new Kcp(
        settings,
        {
          output(buffer, size) {
            const copy = Buffer.from(buffer.subarray(0, size));
            self.sent.push(copy);
            if (!network.drop?.(name, copy))
              inFlight.push({ at: now + (network.delayMs ?? 10), to: name === "a" ? "b" : "a", data: copy });
          },
          deliver: (data) => void self.delivered.push(Buffer.from(data)),
        },
        stats,
        now,
      ),
    };
    return self;
  };
  const a = end("a", { ...BASE, ...own });
  const b = end("b", { ...BASE, ...own, ...peer });
  const step = () => {
    now += 1;
    for (let i = 0; i < inFlight.length; ) {
      const datagram = inFlight[i]!;
      if (datagram.at > now) {
        i += 1;
        continue;
      }
      inFlight.splice(i, 1);
      const to = datagram.to === "a" ? a : b;
      to.kcp.input(datagram.data, now);
      to.wake = to.kcp.wakeAt(now);
    }
    for (const side of [a, b]) {
      if (side.wake > now) continue;
      side.kcp.flush(now);
      side.wake = side.kcp.wakeAt(now);
    }
  };
  return {
    a,
    b,
    get now() {
      return now;
    },
    send(from: End, message: string | Buffer) {
      from.kcp.send(typeof message === "string" ? Buffer.from(message) : message);
      from.kcp.flush(now);
      from.wake = from.kcp.wakeAt(now);
    },
    /** Runs the clock `ms` milliseconds on. */
    run(ms: number) {
      for (let i = 0; i < ms; i += 1) step();
    },
    /** Runs until `done` or `limitMs`; returns the milliseconds it took. */
    until(done: () => boolean, limitMs = 60_000) {
      const from = now;
      while (!done() && now - from < limitMs) step();
      return now - from;
    },
  };
}

describe("KCP segments on the wire", () => {
  it("writes the specification's 24-byte little-endian header: conv, cmd, frg, wnd, ts, sn, una, len, then the data", () => {
    const net = link();
    net.send(net.a, "hello");
    const [datagram] = net.a.sent;
    expect(datagram!.subarray(0, 4)).toEqual(Buffer.from([0x04, 0x03, 0x02, 0x01]));
    expect(headers(datagram!)).toEqual([
      { conv: 0x01020304, cmd: CMD_PUSH, frg: 0, wnd: 32, ts: net.now, sn: 0, una: 0, len: 5 },
    ]);
    expect(datagram!.subarray(24).toString()).toBe("hello");
  });

  it("drops a datagram of another conversation, and one cut short, delivering nothing", () => {
    const net = link({ peer: { conv: 99 } });
    net.send(net.a, "for conversation 0x01020304");
    expect(net.b.kcp.input(net.a.sent[0]!, net.now)).toBe(false);
    expect(net.b.kcp.input(net.a.sent[0]!.subarray(0, 30), net.now)).toBe(false);
    expect(net.b.delivered).toEqual([]);
  });
});

describe("KCP message mode", () => {
  it("delivers every message once and in order, each as the one message it was sent as", () => {
    const net = link();
    const messages = Array.from({ length: 200 }, (_, i) => `message ${i}`);
    for (const message of messages) net.send(net.a, message);
    net.until(() => net.b.delivered.length === messages.length);
    net.run(200);
    expect(net.b.delivered.map(String)).toEqual(messages);
    expect(net.a.stats.retransmits).toBe(0);
  });

  it("splits a message bigger than one segment into fragments counting down to 0 and puts it back together", () => {
    const net = link();
    const big = Buffer.alloc(5_000, 7);
    big.write("start");
    net.send(net.a, big);
    const fragments = net.a.sent.flatMap(headers).filter((h) => h.cmd === CMD_PUSH);
    expect(fragments.map((h) => h.frg)).toEqual([3, 2, 1, 0]);
    expect(fragments.map((h) => h.len)).toEqual([1376, 1376, 1376, 872]);
    // Datagrams never pass the MTU: one fragment each.
    expect(net.a.sent.every((d) => d.length <= 1400)).toBe(true);
    net.until(() => net.b.delivered.length === 1);
    expect(net.b.delivered).toEqual([big]);
  });

  it("refuses a message that needs more than 255 fragments, naming the MTU", () => {
    const net = link({ mtu: 100 });
    expect(() => net.a.kcp.send(Buffer.alloc(255 * 76 + 1))).toThrow(KcpMessageSizeError);
    expect(() => net.a.kcp.send(Buffer.alloc(255 * 76))).not.toThrow();
  });
});

describe("KCP stream mode", () => {
  it("carries a byte stream: small writes share segments, and the bytes arrive whole and in order", () => {
    const net = link({ stream: true, mtu: 200, sendWindow: 1 });
    // A send window of 1 holds the queue back, so later writes fill the segment still waiting.
    const parts = Array.from({ length: 50 }, (_, i) => `part-${i};`);
    for (const part of parts) net.send(net.a, part);
    net.until(() => Buffer.concat(net.b.delivered).length === parts.join("").length);
    expect(Buffer.concat(net.b.delivered).toString()).toBe(parts.join(""));
    const pushes = net.a.sent.flatMap(headers).filter((h) => h.cmd === CMD_PUSH);
    expect(pushes.length).toBeLessThan(parts.length);
    expect(pushes.every((h) => h.frg === 0 && h.len <= 176)).toBe(true);
  });
});

describe("KCP under loss", () => {
  it.each([
    ["message", false],
    ["stream", true],
  ])(
    "%s mode: 10%% of datagrams lost both ways, every message arrives once and in order, the losses resent",
    (_, stream) => {
      const random = seededRandom("kcp loss");
      const net = link({ stream, nodelay: true, intervalMs: 10 }, { delayMs: 20, drop: () => random() < 0.1 });
      const messages = Array.from({ length: 300 }, (_, i) => `m${i};`);
      let next = 0;
      // A message every 5 ms: several in flight at once, as a game client sends.
      net.until(() => {
        if (next < messages.length && net.now % 5 === 0) net.send(net.a, messages[next++]!);
        return next === messages.length && net.a.kcp.waiting === 0;
      });
      const received = stream ? Buffer.concat(net.b.delivered).toString() : net.b.delivered.map(String).join("");
      expect(received).toBe(messages.join(""));
      if (!stream) expect(net.b.delivered).toHaveLength(messages.length);
      expect(net.a.stats.retransmits).toBeGreaterThan(10);
      expect(net.a.stats.retransmits).toBe(net.a.stats.fastRetransmits + net.a.stats.rtoExpiries);
      expect(net.a.stats.wireBytesSent).toBeGreaterThan(net.a.stats.payloadBytesSent);
      expect(net.b.stats.payloadBytesReceived).toBe(Buffer.byteLength(messages.join("")));
    },
  );

  it("resends a lost segment once later ones are acknowledged past it (fast retransmit), well before its RTO", () => {
    let dropped = false;
    const net = link(
      {},
      {
        delayMs: 5,
        drop: (from, d) => {
          if (from !== "a" || dropped || headers(d)[0]!.sn !== 0) return false;
          dropped = true;
          return true;
        },
      },
    );
    for (const message of ["0", "1", "2", "3"]) net.send(net.a, message);
    const took = net.until(() => net.b.delivered.length === 4);
    expect(net.a.stats.fastRetransmits).toBe(1);
    expect(net.a.stats.rtoExpiries).toBe(0);
    expect(took).toBeLessThan(100);
    expect(net.b.delivered.map(String)).toEqual(["0", "1", "2", "3"]);
  });

  it("backs the RTO off after each expiry (a whole RTO more each time, half in nodelay mode) and gives up after 20 sends", () => {
    for (const nodelay of [false, true]) {
      const net = link({ nodelay }, { drop: (from) => from === "a" });
      net.send(net.a, "nobody hears this");
      net.until(() => net.a.kcp.dead, 600_000);
      const sends = net.a.sent.flatMap(headers).map((h) => h.ts);
      expect(sends).toHaveLength(DEAD_LINK_SENDS);
      const gaps = sends.slice(1).map((ts, i) => ts - sends[i]!);
      // No RTT measured: the first RTO is KCP's initial 200 ms; each expiry adds 200 (nodelay: 100).
      const step = nodelay ? 100 : 200;
      expect(gaps.slice(0, 4)).toEqual([200, 200 + step, 200 + 2 * step, 200 + 3 * step]);
      expect(net.a.stats.rtoExpiries).toBe(DEAD_LINK_SENDS - 1);
      // A dead link asks for no more flushes.
      expect(net.a.kcp.wakeAt(net.now)).toBe(Infinity);
    }
  });
});

describe("KCP windows and ACKs", () => {
  it("keeps no more segments in flight than the send window, and no more than the peer's advertised window", () => {
    const net = link({ sendWindow: 4, peer: { receiveWindow: 32 } }, { delayMs: 50 });
    for (let i = 0; i < 20; i += 1) net.send(net.a, `m${i}`);
    expect(net.a.sent.flatMap(headers).filter((h) => h.cmd === CMD_PUSH)).toHaveLength(4);
    net.until(() => net.b.delivered.length === 20);
    expect(net.b.delivered.map(String)).toEqual(Array.from({ length: 20 }, (_, i) => `m${i}`));

    const narrow = link({ sendWindow: 32, peer: { receiveWindow: 3 } }, { delayMs: 50 });
    // The first ACK tells the sender the window: 3 free segments.
    narrow.send(narrow.a, "first");
    narrow.until(() => narrow.a.kcp.waiting === 0);
    const before = narrow.a.sent.length;
    for (let i = 0; i < 10; i += 1) narrow.send(narrow.a, `m${i}`);
    expect(
      narrow.a.sent
        .slice(before)
        .flatMap(headers)
        .filter((h) => h.cmd === CMD_PUSH),
    ).toHaveLength(3);
  });

  it("holds ACKs to the next interval tick and sends them together (those una covers left out), and at once with ackNoDelay", () => {
    const net = link({ intervalMs: 30 }, { delayMs: 1 });
    for (const message of ["a", "b", "c"]) net.a.kcp.send(Buffer.from(message));
    net.send(net.a, "");
    net.run(2);
    // b got all three (one datagram) and owes their ACKs until its next tick. All three are in order, so una 3
    // says it for them; only the newest ACK goes, for the timestamp a times its round trip by.
    expect(net.b.sent).toHaveLength(0);
    expect(net.b.kcp.wakeAt(net.now)).toBeGreaterThan(net.now);
    net.run(30);
    expect(net.b.sent).toHaveLength(1);
    expect(headers(net.b.sent[0]!).map((h) => [h.cmd, h.sn, h.una])).toEqual([[CMD_ACK, 2, 3]]);

    // Out of order (sn 0 lost), each ACK above rcvNxt goes: a counts them toward sn 0's fast retransmit.
    let lost = false;
    const gap = link(
      { intervalMs: 30 },
      {
        delayMs: 1,
        drop: (from, d) => {
          if (from !== "a" || lost || headers(d)[0]!.sn !== 0) return false;
          lost = true;
          return true;
        },
      },
    );
    for (const message of ["a", "b", "c"]) gap.send(gap.a, message);
    gap.run(31);
    expect(headers(gap.b.sent[0]!).map((h) => [h.cmd, h.sn, h.una])).toEqual([
      [CMD_ACK, 1, 0],
      [CMD_ACK, 2, 0],
    ]);

    const quick = link({ ackNoDelay: true }, { delayMs: 1 });
    quick.send(quick.a, "a");
    quick.run(2);
    expect(quick.b.sent.flatMap(headers).map((h) => h.cmd)).toEqual([CMD_ACK]);
  });

  it("times its RTO from the round trips its ACKs' echoed timestamps measure, not from KCP's initial 200 ms", () => {
    let dropNext = false;
    const net = link(
      { nodelay: true, intervalMs: 10, ackNoDelay: true },
      {
        delayMs: 40,
        drop: (from) => {
          if (from !== "a" || !dropNext) return false;
          dropNext = false;
          return true;
        },
      },
    );
    for (let i = 0; i < 20; i += 1) {
      net.send(net.a, `m${i}`);
      net.until(() => net.a.kcp.waiting === 0);
    }
    dropNext = true;
    const sentBefore = net.a.sent.length;
    net.send(net.a, "lost once");
    net.until(() => net.b.delivered.length === 21);
    const [first, again] = net.a.sent
      .slice(sentBefore)
      .flatMap(headers)
      .filter((h) => h.cmd === CMD_PUSH);
    // An 80 ms round trip, steady: the RTO is the smoothed RTT plus one interval (the variance has decayed).
    expect(again!.ts - first!.ts).toBeGreaterThanOrEqual(80);
    expect(again!.ts - first!.ts).toBeLessThan(130);
    expect(net.a.stats.rtoExpiries).toBe(1);
  });

  it("asks for a shut window (WASK) and the peer answers with its own (WINS)", () => {
    const net = link({}, { delayMs: 1 });
    // The peer's window reads 0 in a's view: a probes after 500 ms; b answers with WINS.
    net.a.kcp.input(fakeAck(BASE.conv, 0), net.now);
    net.send(net.a, "waits for the window");
    expect(net.a.sent.flatMap(headers).filter((h) => h.cmd === CMD_PUSH)).toHaveLength(0);
    net.until(() => net.a.sent.flatMap(headers).some((h) => h.cmd === CMD_WASK), 2_000);
    net.until(() => net.b.sent.flatMap(headers).some((h) => h.cmd === CMD_WINS), 1_000);
    net.until(() => net.b.delivered.length === 1, 1_000);
    expect(net.b.delivered.map(String)).toEqual(["waits for the window"]);
  });
});

/** An ACK-less WINS from the peer advertising window `wnd`. */
function fakeAck(conv: number, wnd: number): Buffer {
  const datagram = Buffer.alloc(24);
  datagram.writeUInt32LE(conv, 0);
  datagram[4] = CMD_WINS;
  datagram.writeUInt16LE(wnd, 6);
  return datagram;
}
