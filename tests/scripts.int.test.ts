import { promises as fs } from "node:fs";
import { createServer, type Socket } from "node:net";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@throng/db/client";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { RunView } from "@throng/protocol/run";
import { spawnChild } from "../infra/local/child";
import { ExitCode } from "../cli/src/cli-exit-codes";
import { signUp, waitForAgents, type Browser } from "./fault/support/api-client";
import { root } from "./fault/support/processes";
import { startControlPlane } from "./support/control-plane";
import { agentFromSource, spawnAgent } from "./support/agent-process";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";

/**
 * Scripted clients through the control plane (issue 15 §2): the CLI bundles and uploads a script, a plan names it by
 * sha256, real api, workers and agent processes run it, and the agent fetches the bundle over its control connection
 * and checks its hash. Refusals: an agent without --allow-scripts, a bundle tampered with in storage.
 */
const throngCli = ["--import", "tsx", path.join(root, "cli/src/main.ts")];
const fixture = (name: string) => path.join(root, "agent/src/scripts/fixtures", name);

const { cleanups, tails } = cleanUpAfterFile();
let dir: string;
let apiUrl: string;
let databaseUrl: string;
let browser: Browser;
let apiToken: string;
let tcpPort: number;
let accepted = 0;

/** `throng ...` as a user runs it, with the API and token in the environment; `output` is stdout and stderr. */
async function throng(args: string[]): Promise<{ code: number | null; output: string }> {
  let output = "";
  const cli = spawnChild({
    name: "throng",
    command: process.execPath,
    cwd: root,
    args: [...throngCli, ...args],
    env: { ...process.env, THRONG_SERVER: apiUrl, THRONG_TOKEN: apiToken },
    log: (line) => (output += `${line}\n`),
  });
  cleanups.push(() => cli.stop("SIGKILL", 1_000));
  const exit = await cli.exited;
  return { code: exit.code, output };
}

function startAgent(name: string, labels: string, extra: string[], token: string) {
  const agent = spawnAgent({
    name,
    server: apiUrl,
    token,
    home: dir,
    config: path.join(dir, name, "agent.json"),
    cli: agentFromSource,
    args: ["--label", labels, ...extra],
  });
  cleanups.push(() => agent.stop("SIGKILL", 1_000));
  tails.push(() => `${name}:\n${agent.tail()}`);
}

/** A plan that runs `script` for 4 clients on the agents labelled `scripts=<on>`, timing TCP connects to the test's port. */
const scriptPlan = (name: string, script: { sha256: string } | { path: string }, on: "yes" | "no"): PlanSpecInput => ({
  name,
  target: {
    protocol: "tcp",
    host: "127.0.0.1",
    port: tcpPort,
    framing: { kind: "delimiter", delimiterHex: "0a" },
  } as PlanSpecInput["target"],
  scenario: {
    kind: "script",
    script,
    parameters: { port: tcpPort },
    metrics: [
      { name: "connect-ms", kind: "histogram" },
      { name: "connected", kind: "counter" },
    ],
  },
  load: { clients: 4, durationSec: 5 },
  agents: { labels: { scripts: on } },
});

async function writePlan(plan: PlanSpecInput): Promise<string> {
  const file = path.join(dir, `${crypto.randomUUID()}.json`);
  await fs.writeFile(file, JSON.stringify(plan));
  return file;
}

const failure = (result: { output: string }) => `${result.output}\n${tails.map((t) => t()).join("\n")}`;
/** The one line `throng script upload` prints on stdout. */
const uploaded = (result: { output: string }) =>
  /^([0-9a-f]{64})$/m.exec(result.output)?.[1] ?? `(no sha256 in: ${failure(result)})`;

beforeAll(async () => {
  dir = await tempDirFor(cleanups, "throng-scripts-");
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  tcpPort = (server.address() as { port: number }).port;
  cleanups.push(
    () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(resolve);
      }),
  );
  ({ apiUrl, databaseUrl } = await startControlPlane(cleanups, tails));
  browser = await signUp(apiUrl);
  apiToken = (await browser.request<{ token: string }>("POST", "/api/tokens", { name: "ci", scope: "run" })).token;
  const enrol = async () =>
    (await browser.request<{ token: string }>("POST", "/api/enrolment-tokens", { expiresInMinutes: 60 })).token;
  // Two engine processes: the verified bundle's path crosses to each of them.
  startAgent("scripted", "scripts=yes", ["--engines", "2", "--allow-scripts"], await enrol());
  startAgent("plain", "scripts=no", ["--engines", "1"], await enrol());
  await waitForAgents(browser, 2);
}, 180_000);

describe("scripted clients through the control plane", () => {
  it("the CLI uploads a bundle, a plan runs it by sha256 on an agent that allows scripts, and the stored snapshots carry its metrics", async () => {
    const upload = await throng(["script", "upload", fixture("connect-timed.mjs"), "--name", "connect-timed"]);
    expect(upload.code, failure(upload)).toBe(ExitCode.passed);
    const sha256 = uploaded(upload);
    const listed = await browser.request<{ scripts: { sha256: string; name: string }[] }>("GET", "/api/scripts");
    expect(listed.scripts).toContainEqual(expect.objectContaining({ sha256, name: "connect-timed" }));

    const before = accepted;
    const run = await throng([
      "run",
      await writePlan(scriptPlan("scripted by hash", { sha256 }, "yes")),
      "--wait",
      "--json",
      path.join(dir, "out.json"),
    ]);
    expect(run.code, failure(run)).toBe(ExitCode.passed);
    const runId = (JSON.parse(await fs.readFile(path.join(dir, "out.json"), "utf8")) as { run: RunView }).run.id;
    expect(RunView.parse(await browser.request("GET", `/api/runs/${runId}`))).toMatchObject({
      status: "finished",
      error: null,
    });
    expect(accepted - before).toBe(4);

    const db = createDb(databaseUrl, { max: 1 });
    try {
      const rows = await db
        .selectFrom("snapshots")
        .select(["counters", "histograms"])
        .where("run_id", "=", runId)
        .execute();
      expect(rows.length).toBeGreaterThan(0);
      const connected = rows.reduce(
        (sum, row) => sum + ((row.counters as { scriptCounts?: Record<string, number> }).scriptCounts?.connected ?? 0),
        0,
      );
      expect(connected).toBe(4);
      expect(
        rows.some(
          (row) =>
            typeof (row.histograms as unknown as { script?: Record<string, string> }).script?.["connect-ms"] ===
            "string",
        ),
      ).toBe(true);
    } finally {
      await db.destroy();
    }
    // The agent kept the verified bundle under its hash, beside its credential file.
    expect(await fs.readFile(path.join(dir, "scripted", "scripts", `${sha256}.mjs`), "utf8")).toContain("connect-ms");
  }, 120_000);

  it("throng run bundles and uploads a plan's script: { path } (relative to the plan file) and runs it by sha256", async () => {
    await fs.copyFile(fixture("connects.mjs"), path.join(dir, "bots.mjs"));
    const plan = scriptPlan("scripted by path", { path: "bots.mjs" }, "yes");
    const run = await throng([
      "run",
      await writePlan({
        ...plan,
        scenario: { ...plan.scenario, metrics: [{ name: "connected", kind: "counter" }] } as PlanSpecInput["scenario"],
      }),
      "--wait",
    ]);
    expect(run.code, failure(run)).toBe(ExitCode.passed);
    expect(run.output).toMatch(
      /bundled and uploaded bots\.mjs \(\d+ bytes\); the plan runs it as script: \{ sha256: [0-9a-f]{64} \}/,
    );
  }, 120_000);

  it("a plan only an agent without --allow-scripts could take is refused before any run exists, naming the agent and the flag", async () => {
    const upload = await throng(["script", "upload", fixture("connect-timed.mjs")]);
    const sha256 = uploaded(upload);
    const before = (await browser.request<{ runs: RunView[] }>("GET", "/api/runs")).runs.length;
    const run = await throng(["run", await writePlan(scriptPlan("refused", { sha256 }, "no")), "--wait"]);
    expect(run.code, failure(run)).toBe(ExitCode.noCapacity);
    expect(run.output).toMatch(
      /No agent that matches may run this plan: \S+ does not run scripts \(start it with --allow-scripts\)/,
    );
    expect((await browser.request<{ runs: RunView[] }>("GET", "/api/runs")).runs.length).toBe(before);
    // The Agents page's list says which agent runs scripts (from each agent's hello).
    const agents = (
      await browser.request<{ agents: { labels: Record<string, string>; capabilities?: { scripts: unknown } }[] }>(
        "GET",
        "/api/agents",
      )
    ).agents;
    expect(Object.fromEntries(agents.map((a) => [a.labels.scripts, a.capabilities?.scripts]))).toEqual({
      yes: "any",
      no: "none",
    });
  }, 120_000);

  it("a bundle whose stored bytes no longer hash to its sha256 is refused by the agent, and the run says so", async () => {
    const source = path.join(dir, "tampered.mjs");
    await fs.writeFile(
      source,
      'import net from "node:net";\nexport default async function (ctx) { net.connect(Number(ctx.parameters.port), "127.0.0.1").on("connect", () => ctx.count("connected")); }\n',
    );
    const upload = await throng(["script", "upload", source, "--no-bundle"]);
    const sha256 = uploaded(upload);
    const plan = await writePlan(scriptPlan("tampered", { sha256 }, "yes"));
    const db = createDb(databaseUrl, { max: 1 });
    try {
      await db
        .updateTable("script_bundles")
        .set({ source: "export default async () => { /* not what was uploaded */ };" })
        .where("sha256", "=", sha256)
        .execute();
    } finally {
      await db.destroy();
    }
    const run = await throng(["run", plan, "--wait", "--json", path.join(dir, "tampered.json")]);
    expect(run.code, failure(run)).toBe(ExitCode.runFailed);
    const { run: view } = JSON.parse(await fs.readFile(path.join(dir, "tampered.json"), "utf8")) as { run: RunView };
    expect(view.error).toMatch(
      new RegExp(`refused script bundle ${sha256}: what the server sent hashes to [0-9a-f]{64}`),
    );

    const unknown = await throng(["run", await writePlan(scriptPlan("unknown", { sha256: "0".repeat(64) }, "yes"))]);
    expect(unknown.code).toBe(ExitCode.usage);
    expect(unknown.output).toMatch(
      /scenario\.script\.sha256: no script bundle with this SHA-256 in your organisation: upload it first/,
    );
  }, 120_000);
});
