import { spawn, type ChildProcess } from "node:child_process";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { freePort } from "../local/ports";
import { waitUntil } from "../local/wait";

const balancerPath = fileURLToPath(new URL("./balancer.mjs", import.meta.url));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** An api stand-in that answers every request with its own name. */
async function replica(name: string): Promise<number> {
  const server = http.createServer((_request, response) => response.end(name));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return (server.address() as AddressInfo).port;
}

async function startBalancer(upstreams: number[]): Promise<number> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, [balancerPath], {
    env: {
      ...process.env,
      BALANCER_PORT: String(port),
      BALANCER_UPSTREAMS: upstreams.map((p) => `127.0.0.1:${p}`).join(","),
    },
    stdio: "ignore",
  });
  cleanups.push(() => void child.kill());
  await waitUntil(() => fetch(`http://127.0.0.1:${port}/`).then((r) => r.text().then(() => true)), {
    what: "the balancer",
    timeoutMs: 10_000,
  });
  return port;
}

/** Each request on a connection of its own, as the balancer picks a replica per connection. */
async function names(port: number, count: number): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await fetch(`http://127.0.0.1:${port}/`, { headers: { connection: "close" } });
    answers.push(await response.text());
  }
  return answers;
}

describe("the api balancer (infra/docker/balancer.mjs)", () => {
  it("spreads connections over every replica in turn", async () => {
    const port = await startBalancer([await replica("a"), await replica("b")]);
    const answers = await names(port, 6);
    expect(new Set(answers)).toEqual(new Set(["a", "b"]));
    expect(answers.filter((name) => name === "a")).toHaveLength(3);
  });

  it("skips a replica that refuses connections", async () => {
    const down = await freePort(); // Nothing listens there.
    const port = await startBalancer([down, await replica("up")]);
    expect(await names(port, 4)).toEqual(["up", "up", "up", "up"]);
  });

  it("refuses to start without replicas, naming the variable", async () => {
    const child = spawn(process.execPath, [balancerPath], {
      env: { ...process.env, BALANCER_UPSTREAMS: "" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(code).not.toBe(0);
    expect(stderr).toContain("BALANCER_UPSTREAMS");
  });
});
