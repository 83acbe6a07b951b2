// The server under test on the run page and in the report (agent/PROTOCOL.md §10): a load agent and a watcher
// of the reference target's process join a fresh organisation; a plan that asks for the watcher runs, and the
// "Server under test" charts fill second by second, then the summary and the report show the server's side.
import { join } from "node:path";
import { expect, test } from "./support/test";
import { createPlan, json, pageJourney, stamp, startRun, url, signUp, write } from "./support/e2e-env";

const journey = pageJourney("server-watch");
const { start, startTargetProcess, scratch, shot } = journey;
const DURATION_SEC = 6;

test("a watched run shows the server's CPU, memory and packets beside the load, live and in the report", async () => {
  test.setTimeout(180_000);
  const page = journey.page();
  await signUp(page, "Server Watcher", "watch");

  const enrolment = await json<{ commands: { node: string } }>(
    await page.request.post(url("/api/enrolment-tokens"), { data: {}, ...write }),
    "enrolment token",
  );
  const words = enrolment.commands.node.trim().split(/\s+/);
  const flag = (name: string) => words[words.indexOf(name) + 1]!;
  const target = await startTargetProcess();
  start([...words.slice(2), "--config", join(scratch, "agent.json")]);
  start([
    "watch",
    "--pid",
    String(target.pid),
    "--server",
    flag("--server"),
    "--token",
    flag("--token"),
    "--config",
    join(scratch, "watcher.json"),
    "--label",
    "role=server",
  ]);
  await expect
    .poll(
      async () =>
        (
          await json<{ agents: { status: string; role?: string }[] }>(
            await page.request.get(url("/api/agents")),
            "agents",
          )
        ).agents
          .filter((a) => a.status === "online")
          .map((a) => a.role)
          .sort(),
      { timeout: 30_000 },
    )
    .toEqual(["load", "watch"]);

  const plan = await createPlan(page, {
    name: `Watched ${stamp}`,
    target: { protocol: "websocket", url: target.url },
    scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
    load: { clients: 5, durationSec: DURATION_SEC },
    watch: { labels: { role: "server" } },
  });
  const run = await startRun(page, plan.id);
  await page.goto(url(`/runs/${run.id}`));
  const section = page.getByTestId("server-under-test");
  await expect(section.getByRole("heading", { name: "Server under test" })).toBeVisible();
  const drawn = async (testId: string) => Number((await page.getByTestId(testId).getAttribute("data-points")) ?? 0);
  // Live: the server's seconds arrive as the load's do.
  await expect.poll(() => drawn("chart-server-cpu"), { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
  await expect(page.getByTestId("run-agents").getByTestId("run-agent-watcher")).toHaveCount(1);
  await shot("live");

  await expect(page.getByTestId("run-status")).toHaveAttribute("data-status", "finished", { timeout: 60_000 });
  await expect(page.getByTestId("server-summary")).toContainText(
    /CPU peak [\d.]+ % \(mean [\d.]+ %\), memory [\d.]+ → [\d.]+ MiB/,
    { timeout: 20_000 },
  );
  for (const chart of ["chart-server-cpu", "chart-server-rss", "chart-server-packets"])
    expect(await drawn(chart), chart).toBe(DURATION_SEC);

  await page.goto(url(`/runs/${run.id}/report`));
  await expect(page.getByTestId("report").getByTestId("server-summary")).toContainText("CPU peak");
  await expect(page.getByTestId("report").getByTestId("chart-server-rss")).toHaveAttribute(
    "data-points",
    String(DURATION_SEC),
  );
  await shot("report");
});
