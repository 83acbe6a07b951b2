import { describe, expect, it } from "vitest";
import { baselineRefusal } from "./plan-baseline";

const planId = "11111111-1111-4111-8111-111111111111";
const runId = "22222222-2222-4222-8222-222222222222";
const run = (status: string, ofPlan = planId) => ({ id: runId, planId: ofPlan, planName: "chat", status });

describe("which run can be a plan's baseline", () => {
  it("takes a finished run of the plan itself", () => {
    expect(baselineRefusal(planId, runId, run("finished"))).toBeNull();
  });

  it("refuses a run not in the organisation (404), another plan's run and one not finished (409), naming runId", () => {
    expect(baselineRefusal(planId, runId, undefined)).toMatchObject({ code: "not_found", fields: [{ path: "runId" }] });
    expect(baselineRefusal(planId, runId, run("finished", "33333333-3333-4333-8333-333333333333"))).toMatchObject({
      code: "conflict",
      message: expect.stringContaining('a run of plan "chat"'),
    });
    for (const status of ["queued", "running", "degraded", "aborted", "failed"]) {
      expect(baselineRefusal(planId, runId, run(status))).toMatchObject({
        code: "conflict",
        message: expect.stringContaining(`is ${status}, not finished`),
      });
    }
  });
});
