import { execFile } from "node:child_process";
import { readFile, writeFile } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { THRONG_VERSION } from "@throng/protocol/version";
import { startTarget } from "../target/target-server";
import { assignment, isSnapshot, isStatus, ready, tempConfigPath } from "../testing/agent-harness";
import { startFakeGateway } from "../testing/fake-gateway";
import { startRedisServer } from "../testing/redis-server";
import { ExitCode } from "./exit-codes";
import {
  agentDir,
  bundle,
  cliProcesses,
  connectArgs,
  repoRoot,
  tempPlanFile,
  type Build,
} from "../testing/cli-process";

const run = promisify(execFile);
const { cli, outputOf, exitCode, killAll } = cliProcesses();

beforeAll(async () => {
  await run(process.execPath, [join(agentDir, "build.mjs")], { cwd: repoRoot });
});

afterEach(killAll);

describe.each<Build>(["source", "bundle"])("throng-agent CLI (%s)", (build) => {
  // One build's target on each I/O path, so both serve a real client: its own HTTP front, on epoll or on net.
  const targetIo = build === "source" ? "node" : "native";
  it(`target (THRONG_IO=${targetIo}) prints its URL once listening on port 0 and its I/O path, answers a ping, and exits 0 on SIGTERM`, async () => {
    const child = cli(build, ["target", "--port", "0"], { ...process.env, THRONG_IO: targetIo });
    const output = outputOf(child);
    const line = await output.line(/^target listening on ws:\/\/127\.0\.0\.1:\d+\/ws$/);
    const url = line.replace("target listening on ", "");
    const { WebSocket } = await import("ws");
    const socket = new WebSocket(url);
    const pong = await new Promise<string>((resolve, reject) => {
      socket.once("open", () => socket.send('{"type":"ping","seq":7,"client":0,"pad":""}'));
      socket.once("message", (data) => resolve(String(data)));
      socket.once("error", reject);
    });
    socket.close();
    expect(pong).toBe('{"type":"pong","seq":7}');
    expect(output.stderr()).toContain(targetIo === "node" ? "I/O: Node's sockets (THRONG_IO=node)" : "I/O: native");

    child.kill("SIGTERM");
    expect(await exitCode(child)).toBe(ExitCode.ok);
  });

  // On Node's sockets libuv accepts and drops what it cannot keep (its EMFILE trick) and says nothing: only the
  // native path can warn, but both must keep running.
  it(`target (THRONG_IO=${targetIo}) out of file descriptors ${targetIo === "native" ? "says so on stderr, " : ""}keeps running, and serves again once clients leave`, async () => {
    // A low open-file limit for the target alone: the test's own connections run it out. Not lower: run from source,
    // tsx opens the target's modules (zod's locales among them) many at once while it starts.
    const child = cli(
      build,
      ["target", "--port", "0", "--tcp-port", "0", "--framing", "len2"],
      { ...process.env, THRONG_IO: targetIo },
      256,
    );
    const output = outputOf(child);
    const port = Number((await output.line(/^target tcp on /)).split(":").at(-1));
    const clients = Array.from({ length: 400 }, () => connect({ host: "127.0.0.1", port }).on("error", () => {}));
    for (let i = 0; i < 40 && !output.stderr().includes("cannot accept connections"); i += 1)
      await new Promise((resolve) => setTimeout(resolve, 50));
    if (targetIo === "native")
      expect(output.stderr()).toMatch(
        /target: cannot accept connections: E[NM]FILE \(out of file descriptors, \d+ clients open\); raise the open-file limit/,
      );
    for (const client of clients) client.destroy();
    const pong = async () => {
      const socket = connect({ host: "127.0.0.1", port });
      try {
        return await new Promise<string>((resolve, reject) => {
          const ping = Buffer.from('{"type":"ping","seq":3,"client":0,"pad":""}');
          socket.once("connect", () => socket.write(Buffer.concat([Buffer.from([0, ping.length]), ping])));
          socket.once("data", (data) => resolve(data.subarray(2).toString()));
          socket.once("error", reject);
          socket.once("close", () => reject(new Error("closed")));
          setTimeout(() => reject(new Error("no answer in 1 s")), 1_000);
        });
      } finally {
        socket.destroy();
      }
    };
    let answer: string | Error = new Error("not tried");
    for (let i = 0; i < 10 && typeof answer !== "string"; i += 1) answer = await pong().catch((error: Error) => error);
    expect(answer).toBe('{"type":"pong","seq":3}');
    expect(child.exitCode).toBeNull();
    child.kill("SIGTERM");
    expect(await exitCode(child)).toBe(ExitCode.ok);
  });

  it("connect exits 3 with the server's reason when the token is rejected (close 4003)", async () => {
    const [gateway, config] = await Promise.all([startFakeGateway(), tempConfigPath()]);
    try {
      const child = cli(build, [...connectArgs(gateway, config.path), "--label", "rack=a1"]);
      const output = outputOf(child);
      const connection = await gateway.nextConnection();
      expect((await connection.waitFor((m) => m.type === "hello")).payload).toMatchObject({ labels: { rack: "a1" } });
      connection.close(4003, "enrolment token expired");
      expect(await exitCode(child)).toBe(ExitCode.unauthenticated);
      expect(output.stderr()).toContain("enrolment token expired");
    } finally {
      await Promise.all([gateway.close(), config.cleanup()]);
    }
  });

  it("run executes a YAML plan on 2 engine processes against a TCP target, writes --out and exits 5 on a failed SLO", async () => {
    const target = cli(build, ["target", "--port", "0", "--tcp-port", "0", "--framing", "len2"]);
    const tcpLine = await outputOf(target).line(/^target tcp on /);
    const port = Number(tcpLine.split(":").pop());
    const plan = await tempPlanFile(
      [
        "name: cli run",
        `target: { protocol: tcp, host: 127.0.0.1, port: ${port}, framing: { kind: length-prefix, headerBytes: 2 } }`,
        "scenario: { kind: ping-pong, intervalMs: 50, messageBytes: 64 }",
        "load: { clients: 6, durationSec: 2 }",
        "slos:",
        "  - { metric: error-rate, below: 0.01 }",
        "  - { metric: rtt-p99-ms, below: 0.001 }",
      ].join("\n"),
    );
    const out = join(plan.dir, "snapshots.jsonl");
    // THRONG_IO=native: the run fails, naming the addon, unless the build finds it (beside the bundle, or in agent/dist from source).
    const child = cli(build, ["run", plan.path, "--engines", "2", "--out", out], {
      ...process.env,
      THRONG_IO: "native",
    });
    const output = outputOf(child);
    expect(await exitCode(child)).toBe(ExitCode.sloFailed);
    // Each SLO in its unit (slo-metrics.ts): a rate in percent, a time in ms.
    expect(output.stdout()).toMatch(/SLO error-rate < 1%: 0% → pass/);
    expect(output.stdout()).toMatch(/SLO rtt-p99-ms < 0.001 ms: [\d.]+ ms → FAIL/);
    expect(output.stderr()).toContain("note: I/O: native");
    const snapshots = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { seq: number; clients: number; health: { engines?: number } });
    expect(snapshots.map((s) => s.seq)).toEqual([0, 1]);
    expect(snapshots[1]).toMatchObject({ clients: 6, health: { engines: 2 } });
    await plan.cleanup();
  });

  it("run writes {{secrets.NAME}} in from --secrets-file or THRONG_SECRET_NAME (a real Redis takes the AUTH), and exits 2 naming one it lacks", async () => {
    const redis = await startRedisServer(["--requirepass", "cli-secret-pw"]);
    const plan = await tempPlanFile(
      [
        "name: cli secrets",
        `target: { protocol: tcp, host: 127.0.0.1, port: ${redis.port}, framing: { kind: delimiter, delimiter: "\\r\\n" } }`,
        "scenario:",
        "  kind: ping-pong",
        "  intervalMs: 100",
        "  message: { body: PING }",
        "  match: { by: order }",
        "  session: [{ kind: send, message: { body: 'AUTH {{secrets.REDIS_PASSWORD}}' } }, { kind: expect, reply: { regex: '^\\+OK' }, failWhen: { regex: '^-' } }]",
        "load: { clients: 2, durationSec: 1 }",
        "slos: [{ metric: error-rate, below: 0.01 }]",
      ].join("\n"),
    );
    try {
      const refused = cli(build, ["run", plan.path]);
      const refusedOutput = outputOf(refused);
      expect(await exitCode(refused)).toBe(ExitCode.usage);
      expect(refusedOutput.stderr()).toContain(
        "{{secrets.REDIS_PASSWORD}} (scenario.session.0.message.body): set THRONG_SECRET_REDIS_PASSWORD, or give it in a file with --secrets-file",
      );
      const secretsFile = join(plan.dir, "secrets.env");
      await writeFile(secretsFile, "# for the lobby's Redis\nREDIS_PASSWORD=cli-secret-pw\n");
      for (const [args, env] of [
        [["--secrets-file", secretsFile], process.env],
        [[], { ...process.env, THRONG_SECRET_REDIS_PASSWORD: "cli-secret-pw" }],
      ] as const) {
        const child = cli(build, ["run", plan.path, "--engines", "1", ...args], env);
        const output = outputOf(child);
        expect(await exitCode(child)).toBe(ExitCode.ok);
        expect(output.stdout()).toMatch(/SLO error-rate < 1%: 0% → pass/);
        expect(`${output.stdout()}${output.stderr()}`).not.toContain("cli-secret-pw");
      }
    } finally {
      redis.process.kill();
      await plan.cleanup();
    }
  });

  it("exits 2 naming THRONG_IO when it is not auto, native or node", async () => {
    const child = cli(build, ["run", "plan.yaml"], { ...process.env, THRONG_IO: "uring" });
    const output = outputOf(child);
    expect(await exitCode(child)).toBe(ExitCode.usage);
    expect(output.stderr()).toContain('THRONG_IO must be one of auto, native, node, not "uring"');
  });

  it("run exits 2 naming the bad field of an invalid plan", async () => {
    const plan = await tempPlanFile({
      name: "bad",
      target: { protocol: "tcp", host: "127.0.0.1", port: 1, framing: { kind: "length-prefix", headerBytes: 3 } },
      scenario: { kind: "ping-pong", intervalMs: 5, messageBytes: 64 },
      load: { clients: 1, durationSec: 1 },
    });
    const child = cli(build, ["run", plan.path]);
    const output = outputOf(child);
    expect(await exitCode(child)).toBe(ExitCode.usage);
    expect(output.stderr()).toContain("target.framing.headerBytes: must be 2 or 4");
    expect(output.stderr()).toContain("scenario.intervalMs: must be at least 10 ms");
    await plan.cleanup();
  });

  it("connect runs an assigned shard on 2 pre-forked engine processes against the real target, merged into one snapshot per second", async () => {
    const [gateway, target, config] = await Promise.all([
      startFakeGateway(),
      startTarget({ port: 0 }),
      tempConfigPath(),
    ]);
    try {
      const child = cli(build, [...connectArgs(gateway, config.path), "--engines", "2"]);
      const output = outputOf(child);
      const connection = await gateway.nextConnection();
      await connection.waitFor((m) => m.type === "hello");
      connection.send(ready());
      // The engines are forked when the agent starts, not when a shard comes: ready before any assignment.
      await output.line(/^2 of 2 engine processes forked and ready$/);
      connection.send({
        type: "run-assignment",
        payload: assignment(target.url, { clients: 6, durationSec: 2, startAt: Date.now() + 2_000 }),
      });
      await connection.waitFor(isStatus("finished"), 20_000);
      const snapshots = connection.received.filter(isSnapshot).map((m) => m.payload);
      expect(snapshots.map((s) => s.seq)).toEqual([0, 1]);
      // Both engines' clients (3 + 3) in one snapshot, and both engines' health summed into it.
      for (const snapshot of snapshots) {
        expect(snapshot).toMatchObject({ clients: 6, counters: { connectionsOpen: 6 }, health: { engines: 2 } });
        expect(snapshot.counters.messagesReceived).toBeGreaterThan(0);
      }
      // Each engine runs one shard and exits; the pool forks replacements, so the next shard has engines too.
      const readyLines = () =>
        output
          .stdout()
          .split("\n")
          .filter((line) => line === "2 of 2 engine processes forked and ready").length;
      await new Promise<void>((resolve) => {
        const check = () => readyLines() >= 2 && resolve();
        child.stdout!.on("data", check);
        check();
      });
      const second = assignment(target.url, {
        runId: "0b6f1c2d-3e4f-4a5b-8c6d-7e8f9a0b1c2d",
        clients: 4,
        durationSec: 1,
        startAt: Date.now() + 2_000,
      });
      connection.send({ type: "run-assignment", payload: second });
      await connection.waitFor(
        (m) => m.type === "shard-status" && m.payload.runId === second.runId && m.payload.state === "finished",
        20_000,
      );
      const secondSnapshots = connection.received.filter(isSnapshot).filter((m) => m.payload.runId === second.runId);
      expect(secondSnapshots.map((m) => m.payload)).toMatchObject([{ clients: 4, health: { engines: 2 } }]);
      child.kill("SIGTERM");
      expect(await exitCode(child)).toBe(ExitCode.ok);
    } finally {
      await Promise.all([gateway.close(), target.close(), config.cleanup()]);
    }
  });

  it("connect exits 2 with a hint when there is neither a token nor a stored credential", async () => {
    const config = await tempConfigPath();
    const child = cli(build, ["connect", "--server", "http://127.0.0.1:9", "--config", config.path]);
    const output = outputOf(child);
    expect(await exitCode(child)).toBe(ExitCode.usage);
    expect(output.stderr()).toContain("pass --token");
    await config.cleanup();
  });
});

describe("bundled throng-agent.mjs", () => {
  it("runs --version and --help from any directory", async () => {
    const version = await run(process.execPath, [bundle, "--version"], { cwd: tmpdir() });
    expect(version.stdout.trim()).toBe(THRONG_VERSION);
    const help = await run(bundle, ["--help"], { cwd: tmpdir() });
    expect(help.stdout).toContain("connect [options]");
    expect(help.stdout).toContain("target [options]");
    expect(help.stdout).toContain("run [options] <plan>");
    expect(help.stdout).toContain("watch [options]");
  });
});

describe("throng-agent run --watch-pid (the server on the load's timeline)", () => {
  it("joins the reference target's CPU, memory and packets to every second of --out, the progress and the summary", async () => {
    const target = cli("source", ["target", "--port", "0"]);
    const url = (await outputOf(target).line(/^target listening on /)).replace("target listening on ", "");
    const plan = await tempPlanFile(
      [
        "name: watched",
        `target: { protocol: websocket, url: "${url}" }`,
        "scenario: { kind: echo-flood, messageBytes: 8, maxInFlight: 1 }",
        "load: { clients: 4, durationSec: 3 }",
      ].join("\n"),
    );
    const out = join(plan.dir, "seconds.jsonl");
    const child = cli("source", ["run", plan.path, "--engines", "1", "--out", out, "--watch-pid", String(target.pid)]);
    const output = outputOf(child);
    expect(await exitCode(child)).toBe(ExitCode.ok);
    type Line = {
      seq: number;
      counters: { messagesReceived: number };
      server?: { seq: number; pid: number; cpuPercent: number; rssBytes: number; network: { packetsInPerSec: number } };
    };
    const seconds = (await readFile(out, "utf8"))
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Line);
    expect(seconds.map((s) => s.seq)).toEqual([0, 1, 2]);
    for (const second of seconds) {
      expect(second.server).toMatchObject({ seq: second.seq, pid: target.pid });
      expect(second.server!.rssBytes).toBeGreaterThan(1_000_000);
    }
    // The target echoed thousands of messages a second over loopback: it used CPU and the host saw the packets.
    const busiest = seconds.reduce((a, b) => (b.counters.messagesReceived > a.counters.messagesReceived ? b : a));
    expect(busiest.counters.messagesReceived).toBeGreaterThan(100);
    expect(busiest.server!.cpuPercent).toBeGreaterThan(0);
    expect(busiest.server!.network.packetsInPerSec).toBeGreaterThan(100);
    expect(output.stdout()).toMatch(/\| server cpu \d+% rss [\d.]+ MiB pkt\/s in /);
    expect(output.stdout()).toMatch(
      new RegExp(`server \\(pid ${target.pid}\\)\\s+CPU peak [\\d.]+% mean [\\d.]+%, RSS [\\d.]+ → [\\d.]+ MiB`),
    );
    await plan.cleanup();
  });

  it("exits 2 before any load when the pid or the name matches no process", async () => {
    const plan = await tempPlanFile(
      [
        "name: watched",
        'target: { protocol: websocket, url: "ws://127.0.0.1:9/ws" }',
        "scenario: { kind: echo-flood, messageBytes: 8 }",
        "load: { clients: 1, durationSec: 1 }",
      ].join("\n"),
    );
    const byPid = cli("source", ["run", plan.path, "--watch-pid", String(2 ** 31 - 1)]);
    const pidOutput = outputOf(byPid);
    expect(await exitCode(byPid)).toBe(ExitCode.usage);
    expect(pidOutput.stderr()).toContain("no process with pid 2147483647 (--watch-pid)");
    expect(pidOutput.stdout()).not.toContain("running");
    const byName = cli("source", ["run", plan.path, "--watch-name", "no-such-server-7f3a"]);
    const nameOutput = outputOf(byName);
    expect(await exitCode(byName)).toBe(ExitCode.usage);
    expect(nameOutput.stderr()).toContain('no process named "no-such-server-7f3a" found (--watch-name)');
    await plan.cleanup();
  });
});
