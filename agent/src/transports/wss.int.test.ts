import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { WebSocketTarget } from "@throng/protocol/plan";
import { startTarget, type RunningTarget } from "../target/target-server";
import { assignment, isSnapshot, isStatus, ready, tempConfigPath } from "../testing/agent-harness";
import { merged, runPlan, total } from "../testing/assignment";
import { startFakeGateway } from "../testing/fake-gateway";
import { selfSignedCert, type SelfSignedCert } from "../testing/self-signed-cert";
import type { TransportEnd } from "./transport";
import { webSocketTransport } from "./websocket";

const repoRoot = fileURLToPath(new URL("../../../", import.meta.url));
let cert: SelfSignedCert;
let target: RunningTarget;
const children: ChildProcess[] = [];

beforeAll(async () => {
  cert = await selfSignedCert();
  target = await startTarget({ port: 0, tls: { cert: cert.cert, key: cert.key } });
});
afterAll(async () => {
  await target.close();
  await cert.cleanup();
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

const pingPong = (tls?: WebSocketTarget["tls"]) => ({
  target: { protocol: "websocket" as const, url: target.url, ...(tls ? { tls } : {}) },
  scenario: { kind: "ping-pong" as const, intervalMs: 100, messageBytes: 64 },
  load: { clients: 3, durationSec: 2, rampUpSec: 0 },
});

describe("wss:// (WebSocket over TLS)", () => {
  it("the reference target serves wss:// with a certificate made at test time", () => {
    expect(target.url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/ws$/);
  });

  it("runs ping-pong over wss:// against the target, trusting its self-signed certificate from target.tls.caFile", async () => {
    const snapshots = await runPlan(pingPong({ caFile: cert.certFile }));
    expect(total(snapshots, "connectionsOpened")).toBe(3);
    expect(total(snapshots, "connectionsFailed")).toBe(0);
    expect(total(snapshots, "messagesReceived")).toBeGreaterThan(0);
    expect(merged(snapshots, "rttUs")!.totalCount).toBe(total(snapshots, "messagesReceived"));
  });

  it("verifies by default: the self-signed certificate fails every connection with cause handshake", async () => {
    const snapshots = await runPlan(pingPong());
    expect(total(snapshots, "connectionsOpened")).toBe(0);
    expect(total(snapshots, "connectionsFailed")).toBe(3);
    expect(snapshots.flatMap((s) => Object.keys(s.counters.errorsByKind ?? {}))).toContain("handshake");
  });

  it("insecureSkipVerify accepts the unverified certificate", async () => {
    const snapshots = await runPlan(pingPong({ insecureSkipVerify: true }));
    expect(total(snapshots, "connectionsFailed")).toBe(0);
    expect(total(snapshots, "messagesReceived")).toBeGreaterThan(0);
  });

  it("a caFile that cannot be read or holds no certificate is an error naming the field", () => {
    expect(() =>
      webSocketTransport({ protocol: "websocket", url: target.url, tls: { caFile: "/nonexistent/ca.pem" } }),
    ).toThrow(/^target\.tls\.caFile: cannot read \/nonexistent\/ca\.pem/);
    expect(() => webSocketTransport({ protocol: "websocket", url: target.url, tls: { caFile: cert.keyFile } })).toThrow(
      /target\.tls\.caFile: .* holds no PEM certificate/,
    );
  });

  it("a wss:// URL to a plain ws:// server fails the connection rather than hanging", async () => {
    const plain = await startTarget({ port: 0 });
    try {
      const end = await new Promise<TransportEnd>((resolve) => {
        webSocketTransport({ protocol: "websocket", url: plain.url.replace("ws://", "wss://") }).open({
          onOpen() {},
          onMessage() {},
          onEnd: resolve,
        });
      });
      expect(end.opened).toBe(false);
      expect(end.error).toBeInstanceOf(Error);
    } finally {
      await plain.close();
    }
  });

  it("throng-agent target --tls-cert/--tls-key serves wss://, and one without the other is a usage error", async () => {
    const cli = (args: string[]) => {
      const child = spawn(
        process.execPath,
        ["--import", "tsx", join(repoRoot, "agent", "src", "cli", "main.ts"), "target", "--port", "0", ...args],
        { cwd: repoRoot, stdio: ["ignore", "pipe", "pipe"] },
      );
      children.push(child);
      let out = "";
      child.stdout!.on("data", (chunk) => (out += String(chunk)));
      child.stderr!.on("data", (chunk) => (out += String(chunk)));
      return { child, output: () => out, exited: new Promise<number | null>((resolve) => child.once("exit", resolve)) };
    };
    const served = cli(["--tls-cert", cert.certFile, "--tls-key", cert.keyFile]);
    const url = await new Promise<string>((resolve, reject) => {
      served.child.stdout!.on("data", () => {
        const match = /target listening on (\S+)/.exec(served.output());
        if (match) resolve(match[1]!);
      });
      void served.exited.then((code) => reject(new Error(`target exited ${code}: ${served.output()}`)));
    });
    expect(url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/ws$/);
    served.child.kill("SIGTERM");
    const half = cli(["--tls-cert", cert.certFile]);
    expect(await half.exited).toBe(2);
    expect(half.output()).toContain("--tls-cert and --tls-key go together");
  });

  it("the agent's control connection runs over wss:// (an https API) and its shard loads a wss:// target", async () => {
    const [gateway, config] = await Promise.all([
      startFakeGateway({ tls: { cert: cert.cert, key: cert.key } }),
      tempConfigPath(),
    ]);
    try {
      expect(gateway.server).toMatch(/^https:/);
      // The agent trusts the API's self-signed certificate the standard Node way: NODE_EXTRA_CA_CERTS.
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          join(repoRoot, "agent", "src", "cli", "main.ts"),
          "connect",
          "--server",
          gateway.server,
          "--token",
          "t0ken",
          "--config",
          config.path,
          "--engines",
          "1",
        ],
        {
          cwd: repoRoot,
          env: { ...process.env, NODE_EXTRA_CA_CERTS: cert.certFile },
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      children.push(child);
      const connection = await gateway.nextConnection();
      await connection.waitFor((m) => m.type === "hello");
      connection.send(ready());
      const run = assignment(target.url, { clients: 2, durationSec: 2, startAt: Date.now() + 1_000 });
      run.plan.target = { protocol: "websocket", url: target.url, tls: { caFile: cert.certFile } };
      connection.send({ type: "run-assignment", payload: run });
      await connection.waitFor(isStatus("finished"), 20_000);
      const snapshots = connection.received.filter(isSnapshot).map((m) => m.payload);
      expect(total(snapshots, "messagesReceived")).toBeGreaterThan(0);
      expect(total(snapshots, "connectionsFailed")).toBe(0);
      expect(connection.invalid).toEqual([]);
    } finally {
      await Promise.all([gateway.close(), config.cleanup()]);
    }
  });
});
