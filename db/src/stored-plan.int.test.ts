import { describe, expect, it } from "vitest";
import { ThrongError } from "@throng/protocol/errors";
import { PlanSpec } from "@throng/protocol/plan";
import { storedRun } from "./repos/stored-run";
import { useTestDatabase } from "./vitest-database";

const { db, repos } = await useTestDatabase();

const spec = PlanSpec.parse({
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:1/" },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 2, durationSec: 1 },
});

const storedPlanAndRun = () => storedRun(db, repos, spec, "queued");

describe("a plan read from a row (parsed once, at the boundary)", () => {
  it("reaches core as a parsed PlanSpec: a left-out default is filled in", async () => {
    const { orgId, planId, runId } = await storedPlanAndRun();
    // Stored as an older Throng or a hand edit might have left it: without the fields the schema defaults.
    const bare = {
      name: "p",
      target: spec.target,
      scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
      load: { clients: 2, durationSec: 1 },
    };
    await db
      .updateTable("runs")
      .set({ spec: JSON.stringify(bare) })
      .where("id", "=", runId)
      .execute();
    expect((await repos.runs.get(orgId, runId))!.spec).toEqual(PlanSpec.parse(bare));
    expect((await repos.plans.get(orgId, planId))!.spec).toEqual(spec);
  });

  it("that no longer parses is a named error naming the row and the field, from every read", async () => {
    const { orgId, planId, runId } = await storedPlanAndRun();
    const broken = JSON.stringify({ ...spec, load: { clients: "many", durationSec: 1 } });
    await db.updateTable("runs").set({ spec: broken }).where("id", "=", runId).execute();
    await db.updateTable("plans").set({ spec: broken }).where("id", "=", planId).execute();
    await db.updateTable("plan_versions").set({ spec: broken }).where("plan_id", "=", planId).execute();

    const refusal = (read: () => Promise<unknown>) =>
      read().then(
        () => {
          throw new Error("read a broken plan without an error");
        },
        (error: unknown) => error,
      );
    for (const [read, whose] of [
      [() => repos.runs.get(orgId, runId), `run ${runId}`],
      [() => repos.runs.list(orgId), `run ${runId}`],
      [() => repos.plans.get(orgId, planId), `plan ${planId} (version 1)`],
      [() => repos.plans.list(orgId), `plan ${planId} (version 1)`],
      [() => repos.plans.versions(orgId, planId), `plan ${planId} (version 1)`],
    ] as const) {
      const error = await refusal(read);
      expect(error).toBeInstanceOf(ThrongError);
      expect(error).toMatchObject({ code: "internal", fields: [{ path: "load.clients" }] });
      expect((error as ThrongError).message).toContain(
        `The stored plan of ${whose} no longer reads as a plan (load.clients:`,
      );
    }
  });
});
