import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { createConnection, createServer } from "node:net";
import type { TcpTarget } from "@throng/protocol/plan";

/** A free loopback TCP port (the kernel's pick, released at once). */
export function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/**
 * Debian's redis-server on a free loopback port, without persistence, once it says it is ready: a real third-party
 * server speaking its own protocol (RESP). `args` are extra options (`--requirepass secret`).
 */
export async function startRedisServer(args: string[] = []): Promise<{ port: number; process: ChildProcess }> {
  let path: string;
  try {
    path = execFileSync("sh", ["-c", "command -v redis-server"], { encoding: "utf8" }).trim();
  } catch {
    throw new Error(
      "redis-server is not installed on this machine: install Debian's redis-server (apt-get install redis-server) to run this test",
    );
  }
  const port = await freeLoopbackPort();
  const child = spawn(
    path,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", ...args],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  await new Promise<void>((resolve, reject) => {
    let output = "";
    child.stdout!.on("data", (data: Buffer) => {
      output += data.toString();
      if (output.includes("Ready to accept connections")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${output}`)));
  });
  return { port, process: child };
}

/** The plan target that speaks RESP to the redis-server on `port`: TCP, every command and reply ended by "\r\n". */
export function redisTarget(port: number): TcpTarget {
  return { protocol: "tcp", host: "127.0.0.1", port, framing: { kind: "delimiter", delimiter: "\r\n" } };
}

/** A raw RESP conversation on a fresh socket: sends `commands`, resolves with everything Redis said once `done` matches it. */
export function redisSay(port: number, commands: string, done: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(port, "127.0.0.1", () => socket.write(commands));
    let text = "";
    socket.on("data", (data) => {
      text += data.toString();
      if (done.test(text)) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on("error", reject);
  });
}
