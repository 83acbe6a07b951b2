import { describe, expect, it } from "vitest";
import { Slo } from "@throng/protocol/plan";
import { draftFromInput, draftToInput, emptyDraft, validateDraft, type PlanDraft } from "./plan-draft";
import { newSloRow, sloBelowUnit, sloMetricChoices } from "./plan-slos";
import { initialVariant } from "./schema-form";
import { PLAN_NODE } from "./plan-draft";

const scenarioNode = PLAN_NODE.fields.find((field) => field.key === "scenario")!.node as Parameters<
  typeof initialVariant
>[0];
/** A new plan's draft switched to `kind`, as the form's scenario select does. */
const draftOf = (kind: string, scenario: Record<string, unknown> = {}): PlanDraft => {
  const draft = emptyDraft();
  return { ...draft, scenario: { ...initialVariant(scenarioNode, kind, "scenario", draft.scenario), ...scenario } };
};

describe("the plan form's SLO section (the metric registry, slo-metrics.ts)", () => {
  it("offers only what the scenario measures: a script plan its declared metrics, connect time and the error rate, never a round trip", () => {
    const script = draftOf("script", {
      metrics: [
        { name: "connect-ms", kind: "histogram" },
        { name: "replies", kind: "counter" },
        { name: "Bad Name", kind: "counter" },
        { name: "half", kind: "" },
      ],
    });
    const choices = sloMetricChoices(script);
    expect(choices).toEqual([
      "script:connect-ms-p50",
      "script:connect-ms-p99",
      "script:replies-count",
      "broadcast-p99-ms",
      "connect-p99-ms",
      "error-rate",
    ]);
    for (const metric of choices) expect(Slo.safeParse({ metric, below: 1 }).success).toBe(true);
    expect(sloMetricChoices(draftOf("movement-sync"))).toEqual([
      "broadcast-p99-ms",
      "connect-p99-ms",
      "error-rate",
      "loss-rate",
    ]);
    expect(sloMetricChoices(draftOf("ping-pong"))).toEqual([
      "rtt-p50-ms",
      "rtt-p99-ms",
      "rtt-corrected-p99-ms",
      "connect-p99-ms",
      "error-rate",
    ]);
    expect(sloMetricChoices(draftOf("login-storm", { login: "true" }))).toEqual([
      "connect-p99-ms",
      "login-p99-ms",
      "error-rate",
    ]);
  });

  it("starts a new SLO on the scenario's own figure: a script plan does not default to rtt-p99", () => {
    expect(newSloRow(draftOf("ping-pong"))).toEqual({ metric: "rtt-p99-ms", below: "50" });
    expect(newSloRow(draftOf("script"))).toEqual({ metric: "connect-p99-ms", below: "50" });
    expect(newSloRow(draftOf("script", { metrics: [{ name: "replies", kind: "counter" }] }))).toEqual({
      metric: "script:replies-count",
      below: "1",
    });
    expect(newSloRow(draftOf("movement-sync"))).toEqual({ metric: "broadcast-p99-ms", below: "50" });
    expect(newSloRow(draftOf("login-storm"))).toEqual({ metric: "connect-p99-ms", below: "50" });
  });

  it("shows and takes a rate's threshold in percent while the plan stores the fraction", () => {
    const plan = {
      ...draftToInput(draftOf("movement-sync")),
      slos: [
        { metric: "loss-rate", below: 0.07 },
        { metric: "broadcast-p99-ms", below: 80 },
      ],
    };
    const draft = draftFromInput(plan);
    expect(draft.slos).toEqual([
      { metric: "loss-rate", below: "7" },
      { metric: "broadcast-p99-ms", below: "80" },
    ]);
    expect(
      draftToInput({
        ...draft,
        slos: [
          { metric: "loss-rate", below: "1.25" },
          { metric: "broadcast-p99-ms", below: "80" },
        ],
      }).slos,
    ).toEqual([
      { metric: "loss-rate", below: 0.0125 },
      { metric: "broadcast-p99-ms", below: 80 },
    ]);
    expect(draftToInput(draft).slos).toEqual(plan.slos);
    expect(["loss-rate", "broadcast-p99-ms", "script:replies-count"].map(sloBelowUnit)).toEqual(["%", "ms", "count"]);
  });

  it("says every problem of the first save at once, the SLO its scenario never measures among them", () => {
    const draft = {
      ...draftOf("login-storm"),
      name: "",
      slos: [
        { metric: "rtt-p99-ms", below: "50" },
        { metric: "login-p99-ms", below: "50" },
      ],
    };
    const check = validateDraft(draft);
    expect(check.ok).toBe(false);
    expect(check.ok ? {} : check.errors).toEqual({
      name: "give the plan a name",
      "slos.0.metric": "Round trip p99: round trips are measured only by ping-pong and echo-flood plans",
      // Saving still takes it (plans saved before could name it), the form does not: it would never have data.
      "slos.1.metric":
        "Login p99: this login storm only connects: set login: true or give session steps to time logins",
    });
  });
});
