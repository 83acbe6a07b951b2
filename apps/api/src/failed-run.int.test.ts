// A run its agent refuses at once (issue 27 §2 and §3): it ends before its planned start, so it never started; its
// error names the agent by host name, not by id; its verdict says each reason once.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepos } from "@throng/db/repos";
import { RunView } from "@throng/protocol/run";
import type { TestAgent } from "./testing/test-agent";
import { startApiWithAgent, TEST_CLOSED_BY_TEST } from "./testing/api-with-agent";
import type { TestApi, TestUser } from "./testing/test-api";
import { queuedRun } from "./testing/plans";

let api: TestApi;
let user: TestUser;
let agent: TestAgent;
let orgId: string;
beforeAll(async () => {
  // A start far ahead, so the refusal certainly comes before it.
  const host = { hostname: "rig-7", os: "linux", arch: "x64", cores: 2, memoryBytes: 2 ** 33 };
  ({ api, user, agent, orgId } = await startApiWithAgent(
    "Fail",
    { orchestration: { ...TEST_CLOSED_BY_TEST, startDelayMs: 30_000 } },
    { host },
  ));
});
afterAll(async () => {
  await agent?.close();
  await api?.close();
});

describe("a run refused by its agent before its start", () => {
  it("never started, names its agent by host name, and keeps the plan's SLOs for the report", async () => {
    const run = await queuedRun(user, {
      name: "refused",
      load: { clients: 2, durationSec: 5 },
      slos: [{ metric: "rtt-p99-ms", below: 50 }],
    });
    await api.deps.orchestrator.start(orgId, run.id);
    await agent.next("run-assignment");
    agent.send({
      type: "shard-status",
      payload: { runId: run.id, state: "failed", error: "this agent does not run scripts" },
    });
    // Finish only once the gateway stored the shard's failure: a finish before it closes the run as a shard that
    // never reported its end (a race of the test's, seen in CI, not of the product's).
    const runs = createRepos(api.db).runs;
    await expect
      .poll(async () => (await runs.listShards(orgId, run.id)).map((shard) => shard.state))
      .toEqual(["failed"]);
    await expect
      .poll(async () => {
        await api.deps.orchestrator.finish(orgId, run.id);
        return RunView.parse((await user.request("GET", `/api/runs/${run.id}`)).json).status;
      })
      .toBe("failed");

    const failed = RunView.parse((await user.request("GET", `/api/runs/${run.id}`)).json);
    // It ended before the start it was given: no "started 12:18:25 · ended 12:18:23".
    expect(failed.startedAt).toBeNull();
    expect(failed.endedAt).not.toBeNull();
    expect(failed.error).toBe("agent rig-7: this agent does not run scripts");
    expect(failed.verdict?.reasons.filter((reason) => reason.includes("does not run scripts"))).toEqual([
      "agent rig-7: this agent does not run scripts",
    ]);
    expect(failed.spec.slos).toEqual([{ metric: "rtt-p99-ms", below: 50 }]);
  });
});
