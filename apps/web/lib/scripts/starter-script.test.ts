import { mkdtemp, rm, writeFile } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { STARTER_METRICS, STARTER_SCRIPT } from "./starter-script";

/** What the agent's ScriptContext records (agent/src/scripts/script-clients.ts), kept as plain lists. */
interface Recorded {
  measured: Record<string, number[]>;
  counts: Record<string, number>;
  errors: unknown[];
}

/** A minimal ScriptContext: the same calls as the agent's, recording instead of feeding snapshots. */
function scriptContext(
  port: number,
  parameters: Record<string, string | number>,
  onCount: (name: string, total: number) => void,
) {
  const controller = new AbortController();
  const recorded: Recorded = { measured: {}, counts: {}, errors: [] };
  const ctx = {
    client: 0,
    room: 0,
    parameters,
    target: { protocol: "tcp", host: "127.0.0.1", port, framing: { kind: "delimiter", delimiterHex: "0d0a" } },
    signal: controller.signal,
    async measure<T>(name: string, work: Promise<T> | (() => T | Promise<T>)): Promise<T> {
      const started = performance.now();
      const value = await (typeof work === "function" ? work() : work);
      recorded.measured[name] ??= [];
      recorded.measured[name].push((performance.now() - started) * 1000);
      return value;
    },
    broadcast() {},
    count(name: string, n = 1) {
      recorded.counts[name] = (recorded.counts[name] ?? 0) + n;
      onCount(name, recorded.counts[name]);
    },
    error(cause: unknown) {
      recorded.errors.push(cause);
    },
    every(ms: number, fn: () => unknown) {
      const timer = setInterval(fn, ms);
      const cancel = () => clearInterval(timer);
      controller.signal.addEventListener("abort", cancel, { once: true });
      return cancel;
    },
  };
  return { ctx, recorded, stop: () => controller.abort() };
}

/** Answers every CRLF line with `answer(line)`, as a line-based server (Redis, an echo server) does. */
function lineServer(answer: (line: string) => string): Promise<net.Server> {
  const server = net.createServer((socket) => {
    let buffered = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf("\r\n"); end >= 0; end = buffered.indexOf("\r\n")) {
        socket.write(`${answer(buffered.slice(0, end))}\r\n`);
        buffered = buffered.slice(end + 2);
      }
    });
    socket.on("error", () => {});
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(server)));
}

const portOf = (server: net.Server) => (server.address() as net.AddressInfo).port;

describe("the starter script", () => {
  let dir: string;
  let client: (ctx: unknown) => Promise<void>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "throng-starter-"));
    const file = join(dir, "starter.mjs");
    await writeFile(file, STARTER_SCRIPT);
    client = ((await import(pathToFileURL(file).href)) as { default: typeof client }).default;
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs one client until it has counted `replies` replies (or made as many errors), then stops it. */
  async function runUntil(server: net.Server, parameters: Record<string, string | number>, replies: number) {
    let done!: () => void;
    const enough = new Promise<void>((resolve) => (done = resolve));
    const run = scriptContext(
      portOf(server),
      parameters,
      (name, total) => name === "replies" && total >= replies && done(),
    );
    const error = run.ctx.error;
    run.ctx.error = (cause) => {
      error(cause);
      if (run.recorded.errors.length >= replies) done();
    };
    await client(run.ctx);
    await enough;
    run.stop();
    return run.recorded;
  }

  it("connects to the target, times the connect and each reply, and counts the replies of an echo server", async () => {
    const server = await lineServer((line) => line);
    try {
      const recorded = await runUntil(server, { intervalMs: 5 }, 3);
      expect(recorded.errors).toEqual([]);
      expect(recorded.measured["connect-ms"]).toHaveLength(1);
      expect(recorded.counts.replies).toBeGreaterThanOrEqual(3);
      expect(recorded.measured["reply-ms"]!.length).toBeGreaterThanOrEqual(3);
      expect(STARTER_METRICS.map((metric) => metric.name).sort()).toEqual(
        Object.keys({ ...recorded.measured, ...recorded.counts }).sort(),
      );
    } finally {
      server.close();
    }
  });

  it("sends parameters.message and counts a reply that does not start with parameters.expect as an error", async () => {
    const server = await lineServer((line) => (line === "PING" ? "+PONG" : `-ERR unknown command '${line}'`));
    try {
      const good = await runUntil(server, { intervalMs: 5, message: "PING", expect: "+PONG" }, 2);
      expect(good.errors).toEqual([]);
      const bad = await runUntil(server, { intervalMs: 5, message: "HELLO", expect: "+PONG" }, 2);
      expect(bad.counts.replies).toBeUndefined();
      expect(String(bad.errors[0])).toContain("unexpected reply: -ERR unknown command 'HELLO'");
    } finally {
      server.close();
    }
  });

  it("reports a refused connection through ctx.error and ends the client without a connect time", async () => {
    const server = await lineServer((line) => line);
    const port = portOf(server);
    await new Promise((resolve) => server.close(resolve));
    const run = scriptContext(port, {}, () => {});
    const reported = new Promise<void>((resolve) => {
      run.ctx.error = (cause) => {
        run.recorded.errors.push(cause);
        resolve();
      };
    });
    await client(run.ctx);
    await reported;
    run.stop();
    expect(String(run.recorded.errors[0])).toContain("ECONNREFUSED");
    expect(run.recorded.measured["connect-ms"]).toBeUndefined();
  });
});
