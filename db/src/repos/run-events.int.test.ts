import { describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { planInput } from "@throng/protocol/plan-spec.test-support";
import { useTestDatabase } from "../vitest-database";
import { storedRun } from "./stored-run";

const { db, repos } = await useTestDatabase({ max: 8 });

// Only stored: any plan will do.
const spec = PlanSpec.parse(planInput());

describe("a run's events of one kind, replaced", () => {
  it("are stored once when several closes replace them at the same moment (a job run twice, two workers)", async () => {
    const { orgId, runId } = await storedRun(db, repos, spec);
    const lost = [{ agentId: null, message: "agent rig lost seconds 2–3 (2 s)" }];
    // Without a lock each replacement deletes what it sees (nothing yet) and inserts: the run showed the event twice.
    await Promise.all(Array.from({ length: 8 }, () => repos.runs.replaceEvents(orgId, runId, "seconds-lost", lost)));
    const events = (await repos.runs.listEvents(orgId, runId)).filter((e) => e.kind === "seconds-lost");
    expect(events.map((e) => e.message)).toEqual([lost[0]!.message]);
  });
});
