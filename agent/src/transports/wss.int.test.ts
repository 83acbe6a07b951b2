import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { WebSocketTarget } from "@throng/protocol/plan";
import { startTarget, type RunningTarget } from "../target/target-server";
import { assignment, isSnapshot, isStatus, ready, tempConfigPath } from "../testing/agent-harness";
import { cliProcesses, connectArgs } from "../testing/cli-process";
import { merged, runPlan, total } from "../testing/assignment";
import { startFakeGateway } from "../testing/fake-gateway";
import { selfSignedCert, type SelfSignedCert } from "../testing/self-signed-cert";
import type { TransportEnd } from "./transport";
import { webSocketTransport } from "./websocket";

let cert: SelfSignedCert;
let target: RunningTarget;
const { cli, outputOf, exitCode, killAll } = cliProcesses();

beforeAll(async () => {
  cert = await selfSignedCert();
  target = await startTarget({ port: 0, tls: { cert: cert.cert, key: cert.key } });
});
afterAll(async () => {
  await target.close();
  await cert.cleanup();
});
afterEach(killAll);

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
    const target = (...tls: string[]) => cli("source", ["target", "--port", "0", ...tls]);
    const served = target("--tls-cert", cert.certFile, "--tls-key", cert.keyFile);
    const url = (await outputOf(served).line(/^target listening on /)).replace("target listening on ", "");
    expect(url).toMatch(/^wss:\/\/127\.0\.0\.1:\d+\/ws$/);
    served.kill("SIGTERM");
    const half = target("--tls-cert", cert.certFile);
    const halfOutput = outputOf(half);
    expect(await exitCode(half)).toBe(2);
    expect(halfOutput.stdout() + halfOutput.stderr()).toContain("--tls-cert and --tls-key go together");
  });

  it("the agent's control connection runs over wss:// (an https API) and its shard loads a wss:// target", async () => {
    const [gateway, config] = await Promise.all([
      startFakeGateway({ tls: { cert: cert.cert, key: cert.key } }),
      tempConfigPath(),
    ]);
    try {
      expect(gateway.server).toMatch(/^https:/);
      // The agent trusts the API's self-signed certificate the standard Node way: NODE_EXTRA_CA_CERTS.
      outputOf(
        cli("source", [...connectArgs(gateway, config.path), "--engines", "1"], {
          ...process.env,
          NODE_EXTRA_CA_CERTS: cert.certFile,
        }),
      );
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
