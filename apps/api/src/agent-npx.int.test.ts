import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { extract } from "tar-stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AgentView, EnrolmentTokenCreated } from "@throng/protocol/api";
import { startTestApi, type TestApi } from "./testing/test-api";

const BUNDLE = new URL("../../../agent/dist/throng-agent.mjs", import.meta.url).pathname;

/** A free loopback port, so the API can name its real address in the commands it gives. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  return typeof address === "object" && address ? address.port : 0;
}

async function untar(tgz: Buffer): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  const reader = extract();
  const done = (async () => {
    for await (const entry of reader) {
      const chunks: Buffer[] = [];
      for await (const chunk of entry) chunks.push(Buffer.from(chunk as Uint8Array));
      files.set(entry.header.name, Buffer.concat(chunks));
    }
  })();
  reader.end(gunzipSync(tgz));
  await done;
  return files;
}

describe("the npx install command", () => {
  let api: TestApi;
  let home: string;
  let agent: ChildProcess | undefined;

  beforeAll(async () => {
    api = await startTestApi({ port: await freePort(), agentBundlePath: BUNDLE });
    home = await mkdtemp(join(tmpdir(), "throng-npx-home-"));
  });

  afterAll(async () => {
    if (agent?.pid && agent.exitCode === null) process.kill(-agent.pid, "SIGTERM");
    await api.close();
    await rm(home, { recursive: true, force: true });
  });

  it("serves the agent as an npm package: package.json with a bin, and the bundle as built", async () => {
    const response = await fetch(`${api.url}/agent/throng-agent.tgz`);
    expect(response.status).toBe(200);
    const files = await untar(Buffer.from(await response.arrayBuffer()));
    const manifest = JSON.parse(files.get("package/package.json")!.toString());
    expect(manifest).toMatchObject({ name: "throng-agent", bin: { "throng-agent": "throng-agent.mjs" } });
    expect(manifest.dependencies).toBeUndefined();
    expect(files.get("package/throng-agent.mjs")!.equals(await readFile(BUNDLE))).toBe(true);
    expect(
      files
        .get("package/throng-engine.mjs")!
        .equals(await readFile(BUNDLE.replace("throng-agent.mjs", "throng-engine.mjs"))),
    ).toBe(true);
  });

  it("runs as shown on the Agents page: npx installs from this API (no registry) and the agent comes online", async () => {
    const user = await api.signUp("Npx");
    const created = EnrolmentTokenCreated.parse(
      (await user.request("POST", "/api/enrolment-tokens", { expiresInMinutes: 60, singleUse: true })).json,
    );
    expect(created.commands.npx).toBe(
      `npx --yes ${api.url}/agent/throng-agent.tgz connect --server ${api.url} --token ${created.token}`,
    );
    // The command exactly as shown, in a fresh home and npm cache, with the registry pointed at a closed port:
    // it works only if npx needs nothing but this API.
    agent = spawn("sh", ["-c", created.commands.npx], {
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: join(home, ".config"),
        npm_config_cache: join(home, ".npm"),
        npm_config_registry: "http://127.0.0.1:9/",
        npm_config_update_notifier: "false",
        npm_config_audit: "false",
        npm_config_fund: "false",
      },
    });
    let output = "";
    agent.stdout!.on("data", (chunk) => (output += chunk));
    agent.stderr!.on("data", (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => agent!.once("exit", (code) => resolve(code)));

    // Bounded: 120 looks at the inventory, each after the agent had a moment more; an exit ends the wait at once.
    let online = false;
    for (let attempt = 0; attempt < 120 && !online; attempt++) {
      const outcome = await Promise.race([
        exited.then((code) => ({ exited: code })),
        new Promise((resolve) => setTimeout(resolve, 500)),
      ]);
      if (outcome && typeof outcome === "object" && "exited" in outcome)
        throw new Error(`npx exited (${outcome.exited}) before the agent came online:\n${output}`);
      const { json } = await user.request<{ agents: AgentView[] }>("GET", "/api/agents");
      online = json.agents.some((row: { status: string }) => row.status === "online");
    }
    expect(online, output).toBe(true);
  }, 120_000);
});
