import { describe, expect, it } from "vitest";
import {
  PLAN_SHAPE,
  draftErrors,
  draftFromInput,
  draftToInput,
  emptyDraft,
  expectedMessagesPerSec,
  labelRow,
  switchVariant,
  validateDraft,
} from "./plan-draft";

const plan = {
  name: "Lobby",
  target: { protocol: "websocket", url: "ws://10.0.0.5:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 128 },
  load: { clients: 500, durationSec: 600, rampUpSec: 60 },
};

describe("the plan shape read from the protocol schema", () => {
  it("has every scenario and target variant with its fields", () => {
    expect(PLAN_SHAPE.scenario.discriminator).toBe("kind");
    const pingPong = PLAN_SHAPE.scenario.variants.find((variant) => variant.value === "ping-pong");
    expect(pingPong?.fields.map((field) => [field.key, field.kind, field.min])).toEqual([
      ["intervalMs", "integer", 10],
      ["messageBytes", "integer", 32],
    ]);
    expect(PLAN_SHAPE.target.variants.map((variant) => variant.value)).toContain("websocket");
    expect(PLAN_SHAPE.agents.map((field) => [field.key, field.kind, field.required])).toEqual([
      ["count", "integer", false],
      ["onLost", "enum", false],
    ]);
  });
});

describe("draft ↔ plan", () => {
  it("round-trips a plan through the form unchanged", () => {
    expect(draftToInput(draftFromInput(plan))).toEqual(plan);
    const result = validateDraft(draftFromInput(plan));
    expect(result.ok && result.spec).toEqual(plan);
  });

  it("keeps an agent selection, and leaves it out when it says only the defaults", () => {
    const withAgents = { ...plan, agents: { count: 2, labels: { region: "eu" }, onLost: "abort" } };
    expect(draftToInput(draftFromInput(withAgents))).toEqual(withAgents);
    expect(draftToInput(draftFromInput({ ...plan, agents: { labels: {}, onLost: "continue" } }))).toEqual(plan);
  });

  it("keeps fields the form cannot draw, so an imported file loses nothing on save", () => {
    const draft = draftFromInput({ ...plan, notes: ["x"] });
    expect(draftToInput(draft).notes).toEqual(["x"]);
  });

  it("starts a new plan with working values, and a name to fill", () => {
    const draft = emptyDraft();
    expect(draft.target.values.url).toBe("ws://127.0.0.1:7070/ws");
    expect(draft.load).toMatchObject({ clients: "100", durationSec: "30", rampUpSec: "0" });
    const result = validateDraft(draft);
    expect(!result.ok && result.errors.fields.name).toBe("give the plan a name");
    expect(validateDraft({ ...draft, name: "ok" }).ok).toBe(true);
  });

  it("switches scenario variants, keeping shared fields, and ignores unknown variants", () => {
    const draft = draftFromInput(plan);
    expect(switchVariant(draft, "scenario", "no-such-kind")).toBe(draft);
    const same = switchVariant(draft, "scenario", "ping-pong");
    expect(same.scenario.values).toEqual({ intervalMs: "200", messageBytes: "128" });
  });
});

describe("validateDraft", () => {
  it("names the field for text in a number box rather than a NaN message", () => {
    const draft = draftFromInput(plan);
    const result = validateDraft({ ...draft, load: { ...draft.load, clients: "lots" } });
    expect(!result.ok && result.errors.fields["load.clients"]).toBe("enter a whole number");
  });

  it("puts schema errors on their fields", () => {
    const draft = draftFromInput({ ...plan, target: { protocol: "websocket", url: "http://x" }, load: { ...plan.load, clients: 0 } });
    const result = validateDraft(draft);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.fields["target.url"]).toMatch(/ws:\/\//);
      expect(result.errors.fields["load.clients"]).toBe("must be at least 1");
      expect(result.errors.fields.form).toBeUndefined();
    }
  });

  it("checks agent label rows", () => {
    const draft = draftFromInput(plan);
    const row = labelRow("", "eu");
    const result = validateDraft({ ...draft, agents: { ...draft.agents, labels: [row] } });
    expect(!result.ok && result.errors.labels[row.id]).toMatch(/name/);
  });
});

describe("draftErrors", () => {
  it("maps an API 400 onto fields, label rows and the banner", () => {
    const draft = draftFromInput({ ...plan, agents: { labels: { region: "eu" } } });
    const errors = draftErrors(draft, [
      { path: "load.durationSec", message: "too long" },
      { path: "agents.labels.region", message: "unknown region" },
      { path: "target.tls", message: "unsupported" },
    ]);
    expect(errors.fields).toEqual({ "load.durationSec": "too long", form: "target.tls: unsupported" });
    expect(errors.labels[draft.agents.labels[0]!.id]).toBe("unknown region");
  });
});

describe("expectedMessagesPerSec", () => {
  it("is clients × pings per second, null while unusable", () => {
    expect(expectedMessagesPerSec(draftFromInput(plan))).toBe(2500);
    const draft = draftFromInput(plan);
    expect(expectedMessagesPerSec({ ...draft, load: { ...draft.load, clients: "" } })).toBeNull();
  });
});
