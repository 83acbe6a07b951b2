// Issue 26 §1 and §2, the workflow: a KCP run with a lossy cohort shows a KCP section on its page (live and ended)
// and its report (retransmissions by cause, wire overhead over payload); a TCP run has none; Compare puts the TCP run
// beside the KCP run with each one's protocol, latencies and KCP's overhead. Screenshots in e2e/artifacts/.
import { join } from "node:path";
import { expect, test } from "./support/test";
import {
  artifacts,
  baseUrl,
  enrolAgent,
  json,
  pageJourney,
  stamp,
  url,
  signUp,
  type AgentProcess,
} from "./support/e2e-env";

const journey = pageJourney("kcp");
const { start, scratch } = journey;
const write = { headers: { origin: baseUrl } };

/** The reference target with a TCP echo and a KCP endpoint; resolves with both ports once it listens. */
async function startKcpTarget(): Promise<{ tcpPort: number; kcpPort: number }> {
  const target: AgentProcess = start([
    "target",
    "--host",
    "127.0.0.1",
    "--port",
    "0",
    "--tcp-port",
    "0",
    "--kcp-port",
    "0",
  ]);
  let ports: { tcpPort: number; kcpPort: number } | undefined;
  await expect
    .poll(
      () => {
        const text = target.output.join("");
        const tcp = /target tcp on [\d.]+:(\d+)/.exec(text);
        const kcp = /target kcp on [\d.]+:(\d+)/.exec(text);
        if (tcp && kcp) ports = { tcpPort: Number(tcp[1]), kcpPort: Number(kcp[1]) };
        return ports !== undefined;
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  return ports!;
}

test("KCP: a lossy KCP run shows its retransmissions and overhead on its page and report, and Compare puts a TCP run beside it", async () => {
  const page = journey.page();
  test.setTimeout(240_000);
  await signUp(page, "KCP Tester", "kcp");
  await enrolAgent(page, start, join(scratch, "agent.json"));
  const { tcpPort, kcpPort } = await startKcpTarget();
  const scenario = { kind: "ping-pong", intervalMs: 100, messageBytes: 64 };
  const load = { clients: 10, durationSec: 12, rampUpSec: 0 };
  const planOf = async (data: object) =>
    json<{ id: string }>(await page.request.post(url("/api/plans"), { data, ...write }), "create plan");
  const startRun = async (planId: string) =>
    json<{ id: string }>(await page.request.post(url(`/api/plans/${planId}/runs`), write), "start run");
  const kcpPlan = await planOf({
    name: `KCP ${stamp}`,
    target: { protocol: "kcp", host: "127.0.0.1", port: kcpPort, mode: "fast" },
    scenario,
    load,
    network: [{ name: "lossy", share: 0.5, delayMs: 20, lossPercent: 10 }],
  });
  const tcpPlan = await planOf({
    name: `TCP ${stamp}`,
    target: { protocol: "tcp", host: "127.0.0.1", port: tcpPort, framing: { kind: "length-prefix", headerBytes: 2 } },
    scenario,
    load,
  });

  // Live: the KCP section charts each second as it comes.
  const kcpRun = await startRun(kcpPlan.id);
  await page.goto(url(`/runs/${kcpRun.id}`));
  const section = page.getByTestId("kcp-section");
  await expect(section).toBeVisible({ timeout: 60_000 });
  await expect(section.getByRole("heading", { name: "KCP", exact: true })).toBeVisible();
  await expect(page.getByTestId("chart-kcp-retransmits")).toBeVisible();
  await expect(page.getByTestId("chart-kcp-overhead")).toBeVisible();
  await page.screenshot({ path: join(artifacts, "kcp-live.png"), fullPage: true });

  // Ended: the whole run's figures in a sentence; the lossy cohort made KCP retransmit.
  await expect(page.getByTestId("run-status")).toHaveText(/finished/, { timeout: 90_000 });
  await expect(page.getByTestId("kcp-summary")).toHaveText(
    /^Over the run: [1-9][\d,]* retransmissions \([\d,]+ fast, [\d,]+ RTO expiries\); .+ on the wire for .+ of payload: \+[\d.]+ % overhead/,
    { timeout: 15_000 },
  );
  await page.getByTestId("kcp-section").scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(artifacts, "kcp-ended.png"), fullPage: true });

  // The report (and so its PDF) has the same section.
  await page.goto(url(`/runs/${kcpRun.id}/report`));
  await expect(page.getByTestId("report").getByTestId("kcp-summary")).toHaveText(/^Over the run: [1-9]/, {
    timeout: 30_000,
  });
  await expect(page.getByTestId("report").getByTestId("chart-kcp-wire")).toBeVisible();
  await page.screenshot({ path: join(artifacts, "kcp-report.png"), fullPage: true });

  // A TCP run of the same pings: no KCP section.
  const tcpRun = await startRun(tcpPlan.id);
  await page.goto(url(`/runs/${tcpRun.id}`));
  await expect(page.getByTestId("run-status")).toHaveText(/finished/, { timeout: 90_000 });
  await expect(page.getByTestId("summary-rtt-p99")).toHaveText(/ms$/, { timeout: 15_000 });
  await expect(page.getByTestId("kcp-section")).toHaveCount(0);

  // Compare: TCP (the baseline) beside KCP, each column naming its protocol; KCP's overhead for KCP alone.
  await page.goto(url(`/compare?ids=${tcpRun.id},${kcpRun.id}`));
  await expect(page.getByTestId("compare-protocol")).toHaveText([" · TCP", " · KCP"], { timeout: 30_000 });
  const row = (figure: string) => page.locator(`[data-testid="compare-row"][data-figure="${figure}"] td`);
  await expect(row("rttP99Ms")).toHaveText([/ms$/, /ms/]);
  await expect(row("kcpOverheadPercent")).toHaveText(["—", /^\+[\d.]+ %/]);
  await expect(row("kcpRetransmits")).toHaveText(["—", /^[1-9]/]);
  await page.screenshot({ path: join(artifacts, "kcp-compare.png"), fullPage: true });
});
