import { describe, expect, it } from "vitest";
import { draftFromInput, draftToInput, planField, validateDraft } from "./plan-draft";
import { limitsText } from "./plan-field-text";
import { draftCohortNames, newCohortRow } from "./plan-cohorts";
import { initialValue, type DraftObject } from "./schema-form";

const plan = {
  name: "cohorts",
  target: { protocol: "udp", host: "127.0.0.1", port: 7072 },
  scenario: { kind: "ping-pong", intervalMs: 100, messageBytes: 64 },
  load: { clients: 10, durationSec: 5 },
  network: [
    { name: "mobile", share: 0.3, delayMs: 20, jitterMs: 5, lossPercent: 10 },
    { name: "wifi", clients: 2, bandwidthKbps: 512, direction: "down" },
  ],
  slos: [{ metric: "rtt-p99-ms", below: 200, cohort: "mobile" }],
};

describe("the plan form's network cohorts", () => {
  it("round-trips a plan's cohorts and a cohort's SLO through the form unchanged, as the JSON view shows them", () => {
    const draft = draftFromInput(plan);
    expect(draftToInput(draft).network).toEqual(plan.network);
    expect(draftToInput(draft).slos).toEqual(plan.slos);
    expect(validateDraft(draft).ok).toBe(true);
  });

  it("leaves network out when its last cohort is removed, instead of an empty list the schema refuses", () => {
    const draft = { ...draftFromInput({ ...plan, slos: undefined }), network: [] };
    expect(draftToInput(draft)).not.toHaveProperty("network");
    expect(validateDraft(draft).ok).toBe(true);
  });

  it("names the field that is wrong: a cohort with both a share and clients, and an SLO naming no cohort of the plan", () => {
    const draft = draftFromInput({
      ...plan,
      network: [{ name: "mobile", share: 0.3, clients: 3 }],
      slos: [{ metric: "rtt-p99-ms", below: 200, cohort: "wifi" }],
    });
    const check = validateDraft(draft);
    expect(check.ok).toBe(false);
    if (check.ok) return;
    expect(check.errors["network.0.share"]).toMatch(/either share .* or clients/);
    expect(check.errors["slos.0.cohort"]).toMatch(/"wifi" is not a cohort of this plan/);
  });

  it("offers the cohorts typed so far to an SLO, and starts a new cohort with a name not taken and a tenth of the clients 50 ms away", () => {
    const draft = draftFromInput(plan);
    expect(draftCohortNames(draft)).toEqual(["mobile", "wifi"]);
    expect(
      draftCohortNames({ network: [{ name: "Bad name" }, { name: "" }, { name: "mobile" }, { name: "mobile" }] }),
    ).toEqual(["mobile"]);
    expect(newCohortRow(draft)).toEqual({ name: "satellite" });
    expect(newCohortRow({})).toEqual({ name: "mobile" });
    const network = planField("network").node;
    if (network.kind !== "object-list") throw new Error("network is a list of cohorts");
    expect({ ...(initialValue(network.item, "network") as DraftObject), ...newCohortRow(draft) }).toEqual({
      name: "satellite",
      share: "0.1",
      delayMs: "50",
    });
  });

  it("says a field's limits from the schema in its unit", () => {
    const network = planField("network").node;
    if (network.kind !== "object-list") throw new Error("network is a list of cohorts");
    const node = (key: string) => network.item.fields.find((field) => field.key === key)!.node;
    expect(limitsText(node("lossPercent"), "%")).toBe("0 to 100 %.");
    expect(limitsText(node("delayMs"), "ms")).toMatch(/^0 to 10.000 ms\.$/);
    expect(limitsText(node("clients"), "clients")).toBe("At least 1 clients.");
    expect(limitsText(node("name"))).toBeUndefined();
  });
});
