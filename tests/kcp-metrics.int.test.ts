import { beforeAll, describe, expect, it } from "vitest";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { RunReport } from "@throng/protocol/run";
import { RunComparison } from "@throng/protocol/report";
import { freePort } from "../infra/local/ports";
import { getSeries, signUp, waitForStatus, type Browser } from "./fault/support/api-client";
import { startControlPlane, startEnrolledAgent, startReferenceTarget } from "./support/control-plane";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";

/**
 * KCP's per-second counters under the control plane (agent/PROTOCOL.md §5, issue 26 §1): a real agent pings the
 * reference target over KCP with half its clients on a 20 ms each way, 10% loss cohort; the run's stored series, its
 * summary, the JSON report and the CSV export carry KCP's retransmissions (> 0: the cohort's losses) and its bytes on
 * the wire against payload. A TCP run of the same pings beside it on Compare gives the latencies of both and KCP's
 * retransmissions and overhead, none for TCP.
 */
const { cleanups, tails } = cleanUpAfterFile();
let browser: Browser;
let tcpPort: number;
let kcpPort: number;

beforeAll(async () => {
  const dir = await tempDirFor(cleanups, "throng-kcp-metrics-");
  [tcpPort, kcpPort] = [await freePort(), await freePort()];
  await startReferenceTarget(cleanups, ["--tcp-port", String(tcpPort), "--kcp-port", String(kcpPort)]);
  const plane = await startControlPlane(cleanups, tails);
  browser = await signUp(plane.apiUrl);
  await startEnrolledAgent(plane, browser, dir, cleanups, tails, ["--engines", "1"]);
}, 180_000);

const scenario = { kind: "ping-pong", intervalMs: 100, messageBytes: 64 } as const;
const load = { clients: 10, durationSec: 5, rampUpSec: 0 };

async function finishedRun(plan: PlanSpecInput): Promise<string> {
  const saved = await browser.request<{ id: string }>("POST", "/api/plans", plan);
  const run = await browser.request<{ id: string }>("POST", `/api/plans/${saved.id}/runs`);
  const { run: ended } = await waitForStatus(browser, run.id, ["finished", "failed", "aborted"], 90_000);
  expect(ended.status, `${ended.error}\n${tails.map((tail) => tail()).join("\n")}`).toBe("finished");
  return run.id;
}

async function csvRows(runId: string): Promise<Record<string, string>[]> {
  const [header, ...rows] = (await browser.text(`/api/runs/${runId}/series.csv`))
    .trim()
    .split("\n")
    .map((line) => line.split(","));
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i] ?? ""])));
}

describe("KCP's counters under the control plane (PROTOCOL.md §5)", () => {
  let kcpRunId: string;
  let tcpRunId: string;

  it("stores a KCP run's retransmissions and wire bytes each second and serves them in the series, report and CSV", async () => {
    kcpRunId = await finishedRun({
      name: `kcp ${crypto.randomUUID().slice(0, 6)}`,
      target: { protocol: "kcp", host: "127.0.0.1", port: kcpPort, mode: "fast" },
      scenario,
      load,
      network: [{ name: "lossy", share: 0.5, delayMs: 20, lossPercent: 10 }],
    });
    const points = await getSeries(browser, kcpRunId);
    const sum = (pick: (p: (typeof points)[number]) => number | undefined) =>
      points.reduce((total, p) => total + (pick(p) ?? 0), 0);
    expect(sum((p) => p.kcpRetransmits)).toBeGreaterThan(0);
    expect(sum((p) => p.kcpWireBytesSent)).toBeGreaterThan(sum((p) => p.kcpPayloadBytesSent));
    expect(sum((p) => p.cohorts?.lossy?.kcpRetransmits)).toBeGreaterThan(0);

    const report = RunReport.parse(await browser.request("GET", `/api/runs/${kcpRunId}/report`));
    expect(report.run.summary?.kcpRetransmits).toBe(sum((p) => p.kcpRetransmits));
    expect(report.run.summary?.kcpPayloadBytesReceived).toBeGreaterThan(0);

    const rows = await csvRows(kcpRunId);
    expect(rows.reduce((total, row) => total + Number(row.kcp_retransmits || 0), 0)).toBe(sum((p) => p.kcpRetransmits));
    expect(rows.some((row) => Number(row.kcp_overhead_percent) > 0)).toBe(true);
  }, 120_000);

  it("puts a TCP run beside the KCP run on Compare: both runs' latencies, KCP's retransmissions and overhead, none for TCP", async () => {
    tcpRunId = await finishedRun({
      name: `tcp ${crypto.randomUUID().slice(0, 6)}`,
      target: { protocol: "tcp", host: "127.0.0.1", port: tcpPort, framing: { kind: "length-prefix", headerBytes: 2 } },
      scenario,
      load,
    });
    expect(Object.keys((await csvRows(tcpRunId))[0]!).some((name) => name.startsWith("kcp_"))).toBe(false);

    const comparison = RunComparison.parse(
      await browser.request("GET", `/api/runs/compare?ids=${tcpRunId},${kcpRunId}`),
    );
    const [tcp, kcp] = comparison.runs;
    expect([tcp!.protocol, kcp!.protocol]).toEqual(["tcp", "kcp"]);
    expect(tcp!.summary.rttP99Ms).toBeGreaterThan(0);
    expect(kcp!.summary.rttP99Ms).toBeGreaterThan(0);
    expect(tcp!.summary).toMatchObject({ kcpRetransmits: null, kcpOverheadPercent: null });
    expect(kcp!.summary.kcpRetransmits).toBeGreaterThan(0);
    expect(kcp!.summary.kcpOverheadPercent).toBeGreaterThan(0);
  }, 120_000);
});
