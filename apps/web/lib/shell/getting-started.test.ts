import { describe, expect, it } from "vitest";
import { gettingStartedOpen, gettingStartedSteps } from "./getting-started";

const ticks = (facts: Parameters<typeof gettingStartedSteps>[0]) =>
  gettingStartedSteps(facts).map((step) => [step.id, step.done]);

describe("getting started", () => {
  it("ticks nothing for an empty organisation, in the order token, agent, plan, run", () => {
    expect(ticks({ agents: [], plans: 0, runs: 0 })).toEqual([
      ["token", false],
      ["agent", false],
      ["plan", false],
      ["run", false],
    ]);
    expect(gettingStartedOpen(gettingStartedSteps({ agents: [], plans: 0, runs: 0 }))).toBe(true);
  });

  it("ticks the token once an agent enrolled, and the agent only while one is online or busy", () => {
    expect(ticks({ agents: [{ status: "offline" }], plans: 0, runs: 0 }).slice(0, 2)).toEqual([
      ["token", true],
      ["agent", false],
    ]);
    expect(ticks({ agents: [{ status: "busy" }], plans: 0, runs: 0 }).slice(0, 2)).toEqual([
      ["token", true],
      ["agent", true],
    ]);
  });

  it("is closed once every step is done", () => {
    const steps = gettingStartedSteps({ agents: [{ status: "online" }], plans: 2, runs: 1 });
    expect(steps.every((step) => step.done)).toBe(true);
    expect(gettingStartedOpen(steps)).toBe(false);
    expect(steps.find((step) => step.id === "plan")?.detail).toBe("2 plans saved");
  });
});
