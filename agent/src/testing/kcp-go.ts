import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { findGo } from "./go-toolchain";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The Go module (go.mod, go.sum pinned and committed) of the reference servers and client. */
const SOURCE = path.join(root, "agent", "test-servers", "kcp");

let built: Promise<string> | undefined;

/**
 * Builds agent/test-servers/kcp (kcp-go v5.7.5 from the Go module proxy, the versions go.sum pins) into
 * `<root>/.data/tools/kcp-test-server`, niced: other tests share the cores. Go's build cache makes a rebuild about
 * a second; the first build downloads the modules once. Once per test process.
 */
export function kcpTestServerBinary(): Promise<string> {
  built ??= (async () => {
    const output = path.join(root, ".data", "tools", "kcp-test-server");
    const go = await findGo("the KCP interop tests build xtaci/kcp-go test servers with Go", "1.26");
    await run("nice", ["-n", "10", go, "build", "-o", output, "."], {
      cwd: SOURCE,
      env: { ...process.env, GOFLAGS: "-mod=mod" },
      maxBuffer: 16 << 20,
    });
    return output;
  })();
  return built;
}

/** kcp-go's tuning flags: kcptun's -mode and the rest, as the test servers and client take them. */
export interface KcpGoTuning {
  mode?: "normal" | "fast" | "fast2" | "fast3";
  stream?: boolean;
  mtu?: number;
  sndwnd?: number;
  rcvwnd?: number;
  ackNoDelay?: boolean;
}

function tuningArgs(tuning: KcpGoTuning): string[] {
  const args: string[] = [];
  if (tuning.mode) args.push("-mode", tuning.mode);
  if (tuning.stream) args.push("-stream");
  if (tuning.mtu) args.push("-mtu", String(tuning.mtu));
  if (tuning.sndwnd) args.push("-sndwnd", String(tuning.sndwnd));
  if (tuning.rcvwnd) args.push("-rcvwnd", String(tuning.rcvwnd));
  if (tuning.ackNoDelay) args.push("-acknodelay");
  return args;
}

export interface KcpGoServer {
  port: number;
  close(): Promise<void>;
}

/** Starts a kcp-go echo or room server on a free loopback port; resolves once it says it listens. */
export async function startKcpGoServer(kind: "echo" | "room", tuning: KcpGoTuning = {}): Promise<KcpGoServer> {
  const child = spawn(await kcpTestServerBinary(), [kind, "-listen", "127.0.0.1:0", ...tuningArgs(tuning)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`kcp-test-server ${kind} exited with ${code} before it listened`)));
    createInterface({ input: child.stdout! }).once("line", (line) => {
      const match = /^listening .*:(\d+)$/.exec(line);
      if (match) resolve(Number(match[1]));
      else reject(new Error(`kcp-test-server ${kind} said "${line}", not where it listens`));
    });
  });
  return { port, close: () => stop(child) };
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** What the kcp-go clients measured: their pings' round trips, and kcp-go's own counters. */
export interface KcpGoClientResult {
  sent: number;
  received: number;
  skipped: number;
  unanswered: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  retransmits: number;
  fastRetransmits: number;
  rtoExpiries: number;
  wireBytesSent: number;
  wireBytesReceived: number;
}

/** Runs kcp-go clients pinging an echo server as Throng's ping-pong does; resolves with what they measured. */
export async function runKcpGoClients(options: {
  port: number;
  clients: number;
  intervalMs: number;
  durationSec: number;
  bytes: number;
  tuning?: KcpGoTuning;
}): Promise<KcpGoClientResult> {
  const args = [
    "client",
    "-addr",
    `127.0.0.1:${options.port}`,
    "-clients",
    String(options.clients),
    "-interval",
    `${options.intervalMs}ms`,
    "-duration",
    `${options.durationSec}s`,
    "-size",
    String(options.bytes),
    ...tuningArgs(options.tuning ?? {}),
  ];
  const { stdout } = await run(await kcpTestServerBinary(), args, { maxBuffer: 1 << 20 });
  return JSON.parse(stdout) as KcpGoClientResult;
}
