import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import { stopAllChildren } from "../infra/local/child";
import { prefixedLog } from "../infra/local/log";
import { freePort } from "../infra/local/ports";
import { makeTempDir } from "../infra/local/temp-dir";
import { startBenchServers } from "./bench-servers";
import { waitUntil } from "../infra/local/wait";
import {
  dialSilent,
  held,
  openFiles,
  refusedWith,
  rssMb,
  socketsOnPort,
  type FloodOutcome,
} from "../tests/fault/support/flood";
import { startApi } from "../tests/fault/support/processes";

const log = prefixedLog("bench");
const argValue = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const connections = Math.min(Number(argValue("--connections") ?? 10_500), 15_000);
const sources = Math.min(Math.max(Number(argValue("--sources") ?? 105), 1), 250);
const noCaps = process.argv.includes("--no-caps");
const parallel = 200;

async function main(): Promise<void> {
  const dir = await makeTempDir("throng-bench-flood-");
  try {
    const { database, env } = await startBenchServers(dir, { ephemeral: true, quiet: true });
    const port = await freePort();
    const caps: Record<string, string> = noCaps
      ? { AGENT_PENDING_MAX: "1000000", AGENT_PENDING_PER_ADDRESS: "1000000" }
      : {};
    const api = await startApi(env, port, "api", caps);
    const pid = api.process.pid!;
    const gateway = `ws://127.0.0.1:${port}${AGENT_GATEWAY_PATH}`;
    const addresses = Array.from({ length: sources }, (_, i) => `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`);
    const before = { rss: await rssMb(pid), files: await openFiles(pid) };
    log(
      `${connections} silent connections from ${sources} addresses, caps ${noCaps ? "off" : "as configured by default"}; api RSS ${before.rss.toFixed(0)} MB, ${before.files} open files`,
    );

    // /health once every 200 ms while the flood runs: the slowest answer says whether REST stayed responsive.
    let healthWorst = 0;
    let healthFailed = 0;
    let flooding = true;
    const health = (async () => {
      while (flooding) {
        const started = performance.now();
        const ok = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(5_000) }).then(
          (r) => r.ok,
          () => false,
        );
        if (ok) healthWorst = Math.max(healthWorst, performance.now() - started);
        else healthFailed += 1;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    })();

    const started = performance.now();
    const outcomes: FloodOutcome[] = [];
    let peak = { rss: 0, files: 0 };
    for (let i = 0; i < connections; i += parallel) {
      const batch = Array.from({ length: Math.min(parallel, connections - i) }, (_, j) =>
        dialSilent(gateway, addresses[(i + j) % sources]!),
      );
      outcomes.push(...(await Promise.all(batch)));
      peak = { rss: Math.max(peak.rss, await rssMb(pid)), files: Math.max(peak.files, await openFiles(pid)) };
    }
    const dialSec = (performance.now() - started) / 1000;
    flooding = false;
    await health;
    const failed = outcomes.filter((o) => "failed" in o);
    log(
      `dialled in ${dialSec.toFixed(1)} s: ${held(outcomes).length} held, ${refusedWith(outcomes, 429).length} refused 429, ` +
        `${refusedWith(outcomes, 503).length} refused 503, ${failed.length} failed${failed.length ? ` (${(failed[0] as { failed: string }).failed})` : ""}`,
    );
    log(
      `peak: api RSS ${peak.rss.toFixed(0)} MB, ${peak.files} open files; /health during the flood: slowest ${healthWorst.toFixed(0)} ms, ${healthFailed} failed`,
    );

    // The gateway's hello time-out closes what it held; the flooder does nothing.
    const closing = performance.now();
    await waitUntil(async () => (await socketsOnPort(pid, port, addresses)) === 0, {
      what: "the held connections to be closed by the api",
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    log(
      `the api closed every held connection within ${((performance.now() - closing) / 1000).toFixed(1)} s of the last dial`,
    );
    for (const ws of held(outcomes)) ws.terminate();
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    log(
      `10 s later: api RSS ${(await rssMb(pid)).toFixed(0)} MB, ${await openFiles(pid)} open files (before: ${before.rss.toFixed(0)} MB, ${before.files})`,
    );
    await api.stop("SIGKILL", 1_000);
    await database.drop();
  } finally {
    await stopAllChildren();
  }
}

for (const signal of ["SIGINT", "SIGTERM"] as const)
  process.on(signal, () => void stopAllChildren().finally(() => process.exit(130)));
await main();
process.exit(0);
