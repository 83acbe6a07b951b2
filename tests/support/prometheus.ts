import { promises as fs } from "node:fs";
import path from "node:path";
import { aptInstall } from "../../infra/local/apt";
import { findBinary } from "../../infra/local/binaries";
import { spawnChild, type Child } from "../../infra/local/child";
import { freePort } from "../../infra/local/ports";
import { makeTempDir } from "../../infra/local/temp-dir";
import { waitUntil } from "../../infra/local/wait";

/** A Prometheus of our own on loopback, taking remote write, with its storage in a temp dir. */
export interface TestPrometheus {
  url: string;
  /** Where remote write goes. */
  writeUrl: string;
  /** Every sample of `selector` between two instants (a range selector read at `atSec`), as [epoch seconds, value]. */
  samples(
    selector: string,
    fromSec: number,
    toSec: number,
  ): Promise<{ metric: Record<string, string>; values: [number, number][] }[]>;
  /** An instant query's vector at `atSec`: each series' labels and value (NaN and ±Inf as Prometheus spells them). */
  query(expr: string, atSec: number): Promise<{ metric: Record<string, string>; value: number }[]>;
  child: Child;
  stop(): Promise<void>;
}

/**
 * Debian's `prometheus` (installed here with apt-get when missing and we are root, as infra/local does for
 * redis-server), started with the remote-write receiver on a free loopback port; no scrape targets.
 */
export async function startPrometheus(log: (line: string) => void = () => undefined): Promise<TestPrometheus> {
  let binary = findBinary("prometheus", ["/usr/bin"]);
  if (!binary) {
    log("prometheus is missing: installing Debian's package with apt-get");
    if (!(await aptInstall(["prometheus"], log)))
      throw new Error("install prometheus (apt-get install -y prometheus, 2.42 or later) to run this test");
    binary = findBinary("prometheus", ["/usr/bin"])!;
  }
  const dir = await makeTempDir("throng-prometheus-");
  const config = path.join(dir, "prometheus.yml");
  await fs.writeFile(config, "global:\n  scrape_interval: 1h\nscrape_configs: []\n");
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const child = spawnChild({
    name: "prometheus",
    command: binary,
    cwd: dir,
    args: [
      `--config.file=${config}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--web.enable-remote-write-receiver",
      "--log.level=warn",
    ],
  });
  await waitUntil(async () => (await fetch(`${url}/-/ready`)).ok, {
    what: "prometheus to be ready",
    timeoutMs: 60_000,
    intervalMs: 200,
    abort: child.diedEarly,
  });
  async function instant<R>(query: string, atSec: number): Promise<R[]> {
    const response = await fetch(`${url}/api/v1/query?${new URLSearchParams({ query, time: String(atSec) })}`);
    const body = (await response.json()) as { status: string; error?: string; data: { result: R[] } };
    if (body.status !== "success") throw new Error(`prometheus query ${query} failed: ${body.error}`);
    return body.data.result;
  }
  return {
    url,
    writeUrl: `${url}/api/v1/write`,
    child,
    async samples(selector, fromSec, toSec) {
      const result = await instant<{ metric: Record<string, string>; values: [number, string][] }>(
        `${selector}[${Math.max(1, Math.ceil(toSec - fromSec) + 1)}s]`,
        toSec,
      );
      return result.map((r) => ({
        metric: r.metric,
        values: r.values.map(([t, v]) => [t, Number(v)] as [number, number]),
      }));
    },
    async query(expr, atSec) {
      return (await instant<{ metric: Record<string, string>; value: [number, string] }>(expr, atSec)).map((r) => ({
        metric: r.metric,
        value: Number(r.value[1]),
      }));
    },
    async stop() {
      await child.stop("SIGTERM", 5_000);
      await fs.rm(dir, { recursive: true, force: true });
    },
  };
}
