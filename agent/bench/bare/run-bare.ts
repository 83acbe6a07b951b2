// The bare clients (node-echo.mjs, rust-echo/) as S2 rows of bench:agent: the floor the engine is measured
// against in the same run, on the same pinned core, against the same target.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const bareDir = fileURLToPath(new URL(".", import.meta.url));
const rustDir = join(bareDir, "rust-echo");
const rustBinary = join(rustDir, "target", "release", "bare-echo");
const rustMoveBinary = join(rustDir, "target", "release", "bare-move");

/** What a bare client prints at the end: its measured window only (after connecting and a warm-up). */
export interface BareResult {
  client: "bare-node" | "bare-rust";
  echoesPerSec: number;
  cpuPercent: number;
  usPerEcho: number;
}

export interface BareRun {
  mode: "tcp" | "ws";
  port: number;
  seconds: number;
  cpu: string;
}

/** Builds the Rust client once; the reason it cannot run (no cargo, a failed build) is a row note, not a crash. */
export function prepareRust(): string | undefined {
  try {
    execFileSync("cargo", ["build", "--release", "--quiet"], {
      cwd: rustDir,
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 300_000,
    });
  } catch (error) {
    return `bare Rust client not built: ${(error as Error).message.split("\n")[0]}`;
  }
  const missing = [rustBinary, rustMoveBinary].find((binary) => !existsSync(binary));
  return missing ? `bare Rust client not built: ${missing} missing` : undefined;
}

function argv(run: BareRun): string[] {
  return [
    "--mode",
    run.mode,
    "--port",
    String(run.port),
    "--seconds",
    String(run.seconds),
    "--warmup",
    "2",
    "--clients",
    "100",
  ];
}

/** Runs a bare client pinned to `cpu` and reads the JSON line it prints last. */
function pinned<Result>(command: string, args: string[], cpu: string): Result {
  const out = execFileSync("taskset", ["-c", cpu, command, ...args], {
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
    timeout: 120_000,
  });
  return JSON.parse(out.trim().split("\n").pop()!) as Result;
}

export function runBareNode(run: BareRun): BareResult {
  return pinned<BareResult>(process.execPath, [join(bareDir, "node-echo.mjs"), ...argv(run)], run.cpu);
}

export function runBareRust(run: BareRun): BareResult {
  return pinned<BareResult>(rustBinary, argv(run), run.cpu);
}

/** What a bare movement-sync client (node-move.mjs, rust-echo/src/bin/bare-move.rs) prints: its measured window only. */
export interface BareMoveResult {
  client: "bare-node" | "bare-rust";
  sentPerSec: number;
  receivedPerSec: number;
  cpuPercent: number;
  usPerBroadcast: number;
}

export interface BareMoveRun {
  port: number;
  players: number;
  roomSize: number;
  hz: number;
  seconds: number;
  cpu: string;
}

function moveArgv(run: BareMoveRun): string[] {
  return [
    "--port",
    String(run.port),
    "--clients",
    String(run.players),
    "--room-size",
    String(run.roomSize),
    "--hz",
    String(run.hz),
    "--seconds",
    String(run.seconds),
    "--warmup",
    "2",
  ];
}

export function runBareNodeMove(run: BareMoveRun): BareMoveResult {
  return pinned<BareMoveResult>(process.execPath, [join(bareDir, "node-move.mjs"), ...moveArgv(run)], run.cpu);
}

export function runBareRustMove(run: BareMoveRun): BareMoveResult {
  return pinned<BareMoveResult>(rustMoveBinary, moveArgv(run), run.cpu);
}

/** The bare C echo server (echo-server.c), built with cc into a temporary directory; throws when cc cannot build it. */
export function prepareEchoServer(): string {
  const binary = join(mkdtempSync(join(tmpdir(), "throng-echo-server-")), "echo-server");
  try {
    execFileSync(process.env.CC ?? "cc", ["-O2", "-o", binary, join(bareDir, "echo-server.c")], {
      stdio: ["ignore", "ignore", "pipe"],
    });
  } catch (error) {
    throw new Error(`bare C echo server not built: ${(error as Error).message.split("\n")[0]}`);
  }
  return binary;
}

/** Starts the echo server pinned to `cpu` on a free port; `cpuSeconds()` reads its CPU time from /proc. */
export async function startEchoServer(
  binary: string,
  cpu: string,
): Promise<{ port: number; child: ChildProcess; cpuSeconds(): number }> {
  const child = spawn("taskset", ["-c", cpu, binary, "0"], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.once("data", (chunk) => resolve(Number(/listening on (\d+)/.exec(String(chunk))?.[1])));
    child.once("exit", (code) => reject(new Error(`echo server exited with ${code}`)));
  });
  const cpuSeconds = () => {
    const fields = readFileSync(`/proc/${child.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    // utime and stime, fields 14 and 15 of /proc/PID/stat (11 and 12 after the command), in clock ticks.
    return (Number(fields[11]) + Number(fields[12])) / 100;
  };
  return { port, child, cpuSeconds };
}
