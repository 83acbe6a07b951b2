import { beforeAll, describe, expect, it } from "vitest";
import { RunView } from "@throng/protocol/run";
import { getRun, pingPongPlan, waitForStatus, type Browser } from "./fault/support/api-client";
import { startRunnableOrg } from "./support/control-plane";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";

/**
 * The run queue (issue 18): a run started while its agent is busy waits as "queued" (saying which run holds the
 * agent), can be cancelled there, and starts by itself when the agent is free. Real api, workers, agent and target.
 */
const { cleanups, tails } = cleanUpAfterFile();
let browser: Browser;
let targetUrl = "";

const failure = () => tails.map((t) => t()).join("\n");

beforeAll(async () => {
  const dir = await tempDirFor(cleanups, "throng-queue-");
  ({ targetUrl, browser } = await startRunnableOrg(dir, cleanups, tails));
}, 180_000);

const startRun = async (planId: string) => RunView.parse(await browser.request("POST", `/api/plans/${planId}/runs`));

describe("the run queue", () => {
  it("queues a run while the only agent is busy, says why, lets a queued run be cancelled, and starts the rest when the agent frees up", async () => {
    const long = await browser.request<{ id: string }>("POST", "/api/plans", pingPongPlan(targetUrl, 6));
    // 8 s, not 1 or 4: the queued run starts as the first run's engines exit and the pool forks their replacements,
    // which on a busy host (load average 24 on two cores) took past a 4 s run's end; the shard then expires, honestly
    // ("no load was generated"). The queue is what this test is about, not how fast a busy host forks.
    const short = await browser.request<{ id: string }>("POST", "/api/plans", pingPongPlan(targetUrl, 8));
    const first = await startRun(long.id);
    await waitForStatus(browser, first.id, ["running"], 30_000);

    // Not refused with "no agent is online": the agent is online, only busy, and the run waits.
    const second = await startRun(short.id);
    expect(second.status, failure()).toBe("queued");
    expect(second.events).toContainEqual(
      expect.objectContaining({
        kind: "queued",
        message: `The one agent that matches is busy with run ${first.id}; the run is queued and starts when one is free`,
      }),
    );
    const third = await startRun(short.id);
    expect(third.status).toBe("queued");
    const listed = (await browser.request<{ runs: RunView[] }>("GET", "/api/runs")).runs;
    expect(
      listed
        .filter((run) => run.status === "queued")
        .map((run) => run.id)
        .sort(),
    ).toEqual([second.id, third.id].sort());

    // A queued run is cancelled like any other: it never takes the agent.
    expect(RunView.parse(await browser.request("POST", `/api/runs/${third.id}/abort`)).status).toBe("aborted");

    const { run: firstDone } = await waitForStatus(browser, first.id, ["finished"], 60_000);
    const { run: secondDone } = await waitForStatus(browser, second.id, ["finished"], 60_000);
    expect(secondDone.error, failure()).toBeNull();
    // It started on the agent the first run freed, not beside it.
    expect(Date.parse(secondDone.startedAt!)).toBeGreaterThanOrEqual(Date.parse(firstDone.endedAt!));
    const cancelled = await getRun(browser, third.id);
    expect(cancelled).toMatchObject({ status: "aborted", startedAt: null });
  }, 150_000);
});
