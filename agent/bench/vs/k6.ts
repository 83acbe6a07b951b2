// Grafana k6 (`go install go.k6.io/k6@latest`, built once and kept in ~/go/bin) on the bench scenarios: one
// script per scenario with k6/ws. k6 has no raw TCP client built in, so S2-TCP is reported as such, not faked.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pingFrame } from "../../src/scenarios/ping-pong";
import type { VsScenario, VsTarget, VsTool } from "./shared";

const GO = process.env.GO ?? (existsSync("/usr/local/go/bin/go") ? "/usr/local/go/bin/go" : "go");
const GO_BIN = join(process.env.GOPATH ?? join(homedir(), "go"), "bin");
const K6 = join(GO_BIN, "k6");

/** The k6 binary: one already built, or `go install go.k6.io/k6@latest` once (minutes of CPU) and kept. */
function installK6(): string | undefined {
  if (existsSync(K6)) return undefined;
  console.error(
    `--vs k6: ${K6} not found; building it with \`${GO} install go.k6.io/k6@latest\` (takes minutes and a lot of CPU, done once)`,
  );
  const build = spawnSync(GO, ["install", "go.k6.io/k6@latest"], { stdio: ["ignore", "inherit", "inherit"] });
  if (build.error) return `cannot run ${GO}: ${build.error.message}`;
  if (build.status !== 0) return `go install go.k6.io/k6@latest failed (exit ${build.status}; see the output above)`;
  return existsSync(K6) ? undefined : `go install succeeded but ${K6} is missing (GOBIN set elsewhere?)`;
}

const SUMMARY = `
export function handleSummary(data) {
  return { [__ENV.SUMMARY_FILE]: JSON.stringify(data.metrics) };
}`;

/** The k6 script reproducing one scenario; the target URL and sizes arrive as constants. */
export function k6Script(scenario: VsScenario, target: VsTarget): string | undefined {
  const url = JSON.stringify(target.wsUrl);
  if (scenario.kind === "s1") {
    const ping = JSON.stringify(pingFrame(1, 0, 164, 71));
    return `import ws from "k6/ws";
import { sleep } from "k6";
import { Trend } from "k6/metrics";
const rtt = new Trend("pong_rtt", true);
export const options = {
  scenarios: { s1: { executor: "ramping-vus", startVUs: 0, stages: [{ duration: "${scenario.rampUpSec}s", target: ${scenario.clients} }, { duration: "${scenario.holdSec}s", target: ${scenario.clients} }], gracefulRampDown: "0s", gracefulStop: "3s" } },
  summaryTrendStats: ["med", "p(99)", "max"],
};
export function setup() { return { end: Date.now() + ${(scenario.rampUpSec + scenario.holdSec) * 1000} }; }
export default function (data) {
  if (Date.now() >= data.end) return sleep(1);
  ws.connect(${url}, {}, (socket) => {
    let sentAt = 0;
    socket.on("open", () => {
      // A fixed interval per client, as Throng's ping-pong: one 164-byte ping, one 71-byte pong.
      socket.setInterval(() => { sentAt = Date.now(); socket.send(${ping}); }, ${scenario.intervalMs});
      socket.setTimeout(() => socket.close(), Math.max(1, data.end - Date.now()));
    });
    socket.on("message", () => rtt.add(Date.now() - sentAt));
  });
}
${SUMMARY}`;
  }
  if (scenario.kind === "s2") {
    if (scenario.protocol === "tcp") return undefined;
    return `import ws from "k6/ws";
export const options = {
  scenarios: { s2: { executor: "constant-vus", vus: ${scenario.connections}, duration: "${scenario.durationSec}s", gracefulStop: "3s" } },
  summaryTrendStats: ["med", "p(99)", "max"],
};
export function setup() { return { end: Date.now() + ${scenario.durationSec * 1000} }; }
export default function (data) {
  ws.connect(${url}, {}, (socket) => {
    const payload = new Uint8Array([97, 98, 99, 100, 101, 102, 103, 104]).buffer;
    // One 8-byte binary message in flight: the next goes the moment the echo arrives.
    socket.on("open", () => {
      socket.sendBinary(payload);
      socket.setTimeout(() => socket.close(), Math.max(1, data.end - Date.now()));
    });
    socket.on("binaryMessage", () => socket.sendBinary(payload));
  });
}
${SUMMARY}`;
  }
  return `import ws from "k6/ws";
import { sleep } from "k6";
export const options = {
  scenarios: { s3: { executor: "per-vu-iterations", vus: ${scenario.clients}, iterations: 1, maxDuration: "${scenario.holdSec + 30}s", gracefulStop: "3s" } },
  summaryTrendStats: ["med", "p(99)", "max"],
};
export function setup() { return { end: Date.now() + ${scenario.holdSec * 1000} }; }
export default function (data) {
  // Every VU connects at once and holds its connection to the end: as fast as k6 opens them.
  ws.connect(${url}, {}, (socket) => {
    socket.on("open", () => socket.setTimeout(() => socket.close(), Math.max(1, data.end - Date.now())));
  });
}
${SUMMARY}`;
}

const trend = (metrics: Record<string, { values?: Record<string, number> }>, name: string) => {
  const values = metrics[name]?.values;
  return values ? `${name} p50 ${values.med?.toFixed(2)} / p99 ${values["p(99)"]?.toFixed(2)} ms` : undefined;
};

export function k6Tool(): VsTool {
  const base = (dir: string, scenario: VsScenario) =>
    join(dir, `k6-${scenario.kind}-${scenario.kind === "s2" ? scenario.protocol : scenario.clients}`);
  return {
    name: "k6",
    prepare: async () => installK6(),
    command(scenario, target, dir) {
      const script = k6Script(scenario, target);
      if (!script) return { unsupported: "k6: no raw TCP (no TCP client built in; not faked)" };
      writeFileSync(`${base(dir, scenario)}.js`, script);
      return {
        argv: [K6, "run", "--quiet", "--no-usage-report", "--no-color", `${base(dir, scenario)}.js`],
        env: { SUMMARY_FILE: `${base(dir, scenario)}.summary.json`, K6_NO_USAGE_REPORT: "true" },
      };
    },
    latency(scenario, dir) {
      const file = `${base(dir, scenario)}.summary.json`;
      if (!existsSync(file)) return undefined;
      const metrics = JSON.parse(readFileSync(file, "utf8")) as Record<string, { values?: Record<string, number> }>;
      const parts = [
        scenario.kind === "s1" ? trend(metrics, "pong_rtt") : undefined,
        trend(metrics, "ws_connecting"),
      ].filter(Boolean);
      if (scenario.kind === "s2") parts.push("no per-message latency in k6/ws");
      return parts.join("; ") || undefined;
    },
  };
}
