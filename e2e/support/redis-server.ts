// A private redis-server on loopback for journeys that need a real third-party TCP server speaking RESP. (The
// stack's own Redis is not handed to Playwright by npm test, and a private one keeps test traffic off the queues.)
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { connect, createServer } from "node:net";
import { expect, test } from "./test";

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One RESP command's first reply line, or the error's message. */
export function redisPing(port: number): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port }, () => socket.write("PING\r\n"));
    socket.once("data", (data) => {
      resolve(data.toString().trim());
      socket.destroy();
    });
    socket.once("error", (error) => resolve(error.message));
  });
}

/**
 * Starts redis-server on a free port with no persistence in `dir`, once it answers (PING, or NOAUTH with
 * `--requirepass` among `extra`); skips the test without one.
 */
export async function startRedis(dir: string, extra: string[] = []): Promise<{ port: number; process: ChildProcess }> {
  const binary = ["/usr/bin/redis-server", "/usr/sbin/redis-server", "/usr/local/bin/redis-server"].find((candidate) =>
    existsSync(candidate),
  );
  test.skip(!binary, "redis-server is not installed (npm test installs it for the stack)");
  const port = await freePort();
  const process = spawn(
    binary!,
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir, ...extra],
    { stdio: "ignore" },
  );
  await expect
    .poll(() => redisPing(port), { timeout: 10_000 })
    .toMatch(extra.includes("--requirepass") ? /^-NOAUTH/ : /^\+PONG$/);
  return { port, process };
}
