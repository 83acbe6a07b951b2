import { describe, expect, it } from "vitest";
import { ErrorBody } from "@throng/protocol/errors";
import { TERMINAL_RUN_STATUSES } from "@throng/protocol/run";
import { waitUntil } from "../../infra/local/wait";
import { WEB_ORIGIN } from "./support/processes";
import { getRun, waitForStatus } from "./support/api-client";
import { untilAgentsMeasured } from "./support/assertions";
import type { FaultAgent } from "./support/fault-cluster";
import { faultClusterPerFile } from "./support/cluster-per-file";

const durationSec = 60;

const cluster = faultClusterPerFile({ agents: 2, privatePostgres: true });

/** pino's JSON lines at error level (50) or above, by their message. */
const errorLines = (lines: readonly string[]) =>
  lines.flatMap((line) => {
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string };
      return (entry.level ?? 0) >= 50 ? [entry.msg ?? line] : [];
    } catch {
      return [];
    }
  });

describe("fault: PostgreSQL is stopped for 20 s mid-run and started again on the same data (issue 27)", () => {
  it("the api answers 503 with Retry-After meanwhile, and the lost check of an agent killed just before it runs once the database is back", async () => {
    const [, killed] = cluster().agents as [FaultAgent, FaultAgent];
    const runId = await cluster().startRun(durationSec);
    await untilAgentsMeasured(cluster(), runId, 3);

    // Killed while the database is up: the api marks it offline and delays its lost check by the grace (10 s),
    // which then runs while the database is down: it must wait for it, not fail its five attempts in 8 s.
    await killed.kill();
    await waitUntil(async () => cluster().logs.api.some((line) => line.includes('"agent disconnected"')), {
      what: "the api to see the agent go",
      timeoutMs: 20_000,
    });
    const stoppedAt = Date.now();
    await cluster().stopPostgres();

    const response = await fetch(`${cluster().apiUrls[0]}/api/runs/${runId}`, {
      headers: { origin: WEB_ORIGIN, cookie: cluster().browser.cookie() },
    });
    const answered = {
      status: response.status,
      retryAfter: response.headers.get("retry-after"),
      body: ErrorBody.safeParse(await response.json()).data,
    };
    expect(answered).toMatchObject({ status: 503, retryAfter: "5", body: { error: { code: "unavailable" } } });
    expect(answered.body!.error.message).toMatch(/database is unavailable/);

    // The outage outlasts the lost check's first try (10 s after the kill) and all five of its quick retries.
    await new Promise((resolve) => setTimeout(resolve, stoppedAt + 20_000 - Date.now()));
    await cluster().startPostgres();

    await waitUntil(
      async () =>
        (await getRun(cluster().browser, runId)).events.some((e) => e.kind === "agent-lost" && e.agentId === killed.id),
      {
        what: "the killed agent's agent-lost event",
        timeoutMs: 60_000,
        intervalMs: 500,
      },
    );
    const { run } = await waitForStatus(cluster().browser, runId, [...TERMINAL_RUN_STATUSES], 90_000);
    expect(run.status).toBe("finished");
    // Agents are named by host name, with a short id (core's agent naming).
    expect(run.error).toMatch(new RegExp(`agent \\S+ \\(${killed.id.slice(0, 8)}\\) was lost mid-run`));
    const agents = (await cluster().browser.request<{ agents: { id: string; status: string }[] }>("GET", "/api/agents"))
      .agents;
    expect(agents.find((a) => a.id === killed.id)?.status).toBe("offline");

    const workersWaited = cluster().logs.workers.filter((line) =>
      line.includes("database unavailable; job waits and runs again"),
    );
    expect(workersWaited.length, "the lost check found the database down and waited").toBeGreaterThan(0);
    expect(cluster().logs.workers.filter((line) => line.includes('"job failed"'))).toEqual([]);
    expect(
      errorLines(cluster().logs.api).filter((msg) => /offline|lost check|agent-lost|request failed/.test(msg)),
    ).toEqual([]);
    console.log(
      `postgres-outage: 503 "${answered.body!.error.message}" (Retry-After ${answered.retryAfter}); workers waited ${workersWaited.length} time(s); ` +
        `api error lines: ${JSON.stringify(errorLines(cluster().logs.api))}; verdict ${run.verdict?.outcome}: ${run.verdict?.reasons.join(" | ")}`,
    );
  }, 240_000);
});
