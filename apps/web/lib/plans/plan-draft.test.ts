import { describe, expect, it } from "vitest";
import {
  PLAN_NODE,
  draftFromInput,
  draftToInput,
  emptyDraft,
  expectedMessagesPerSec,
  planField,
  specFieldErrors,
  validateDraft,
} from "./plan-draft";
import { initialVariant, type DraftObject } from "./schema-form";
import type { NodeSpec } from "./schema-node";

const plan = {
  name: "Lobby",
  target: { protocol: "websocket", url: "ws://10.0.0.5:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 128 },
  load: { clients: 500, durationSec: 600, rampUpSec: 60 },
};

/** The plan under a stepped load of up to 1,000 clients, its shape as given. */
const steppedUp = <Shape>(shape: Shape) => ({
  ...plan,
  load: { clients: 1_000, durationSec: 600, rampUpSec: 0, shape },
});
const union = (key: string) => planField(key).node as Extract<NodeSpec, { kind: "union" }>;

describe("the plan shape read from the protocol schema", () => {
  it("has a variant for every scenario and transport the schema lists", () => {
    expect(union("scenario").discriminator).toBe("kind");
    expect(union("scenario").variants.map((variant) => variant.value)).toContain("ping-pong");
    expect(union("target").discriminator).toBe("protocol");
    expect(union("target").variants.map((variant) => variant.value)).toContain("websocket");
    const pingPong = union("scenario").variants.find((variant) => variant.value === "ping-pong")!;
    expect(pingPong.fields.slice(0, 2).map((field) => [field.key, field.node.kind, field.required])).toEqual([
      ["intervalMs", "integer", true],
      ["messageBytes", "integer", false],
    ]);
    expect(PLAN_NODE.fields.map((field) => field.key)).toEqual(
      expect.arrayContaining(["name", "target", "scenario", "load", "agents"]),
    );
  });
});

describe("draft ↔ plan", () => {
  it("round-trips a plan through the form unchanged", () => {
    expect(draftToInput(draftFromInput(plan))).toEqual(plan);
    const result = validateDraft(draftFromInput(plan));
    expect(result.ok && result.spec).toMatchObject(plan);
  });

  it("round-trips an automatic capacity search, and shows its fields in the load shape's step-up variant", () => {
    const search = steppedUp({
      kind: "step-up",
      mode: "auto",
      startClients: 200,
      stepDurationSec: 10,
      coarseSteps: 6,
      fineSteps: 4,
    });
    expect(draftToInput(draftFromInput(search))).toEqual(search);
    const result = validateDraft(draftFromInput(search));
    expect(result.ok && result.spec.load.shape).toEqual(search.load.shape);
    const load = planField("load").node as Extract<NodeSpec, { kind: "object" }>;
    const shape = load.fields.find((field) => field.key === "shape")!.node as Extract<NodeSpec, { kind: "union" }>;
    const stepUp = shape.variants.find((variant) => variant.value === "step-up")!;
    expect(stepUp.fields.map((field) => field.key)).toEqual(
      expect.arrayContaining(["mode", "startClients", "stepClients", "coarseSteps", "fineSteps"]),
    );
    expect(stepUp.fields.find((field) => field.key === "mode")!.node).toMatchObject({ kind: "choice" });
  });

  it("puts a step-up's missing step size on its field", () => {
    const fixed = steppedUp({ kind: "step-up", startClients: 200, stepDurationSec: 10 });
    const result = validateDraft(draftFromInput(fixed));
    expect(!result.ok && result.errors["load.shape.stepClients"]).toBe(
      "give the clients added per step, or set mode: auto",
    );
  });

  it("keeps an agent selection, and leaves it out when it says only the defaults", () => {
    const withAgents = { ...plan, agents: { count: 2, labels: { region: "eu" }, onLost: "abort" } };
    expect(draftToInput(draftFromInput(withAgents))).toEqual(withAgents);
    expect(draftToInput(draftFromInput({ ...plan, agents: { labels: { region: "eu" } } })).agents).toEqual({
      labels: { region: "eu" },
    });
    expect(draftToInput(draftFromInput({ ...plan, agents: { labels: {}, onLost: "continue" } }))).toEqual(plan);
  });

  it("leaves the built-in ping's size out of a plan whose scenario sends its own message, as the engine ignores it", () => {
    const redis = {
      ...plan,
      scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64, message: { body: "PING" } },
    };
    expect(draftToInput(draftFromInput(redis)).scenario).toEqual({
      kind: "ping-pong",
      intervalMs: 200,
      message: { body: "PING" },
    });
    const moving = {
      ...plan,
      scenario: { kind: "movement-sync", roomSize: 4, messageBytes: 64, update: { body: "MOVE {{x}}" } },
    };
    expect(draftToInput(draftFromInput(moving)).scenario).not.toHaveProperty("messageBytes");
    // echo-flood's schema requires it, and a plan without a message of its own keeps it.
    const echo = { ...plan, scenario: { kind: "echo-flood", messageBytes: 32, message: { body: "x" } } };
    expect(draftToInput(draftFromInput(echo)).scenario).toHaveProperty("messageBytes", 32);
    expect(draftToInput(draftFromInput(plan)).scenario).toHaveProperty("messageBytes", 128);
  });

  it("starts a TCP target with a framing that saves, and reads a delimiter given as text as the one hex delimiter the form shows", () => {
    const tcp = { ...emptyDraft(), name: "Redis", target: initialVariant(union("target"), "tcp", "target") };
    expect((tcp.target as DraftObject).framing).toEqual({ kind: "length-prefix", headerBytes: "2" });
    expect(validateDraft(tcp).ok).toBe(true);
    const framing = (tcp.target as DraftObject).framing as DraftObject;
    const framingNode = union("target")
      .variants.find((variant) => variant.value === "tcp")!
      .fields.find((field) => field.key === "framing")!.node as Extract<NodeSpec, { kind: "union" }>;
    expect(initialVariant(framingNode, "delimiter", "target.tcp.framing", framing)).toEqual({
      kind: "delimiter",
      delimiterHex: "0a",
    });
    const redis = {
      ...plan,
      target: { protocol: "tcp", host: "127.0.0.1", port: 6379, framing: { kind: "delimiter", delimiter: "\r\n" } },
    };
    expect((draftFromInput(redis).target as DraftObject).framing).toEqual({ kind: "delimiter", delimiterHex: "0d0a" });
    expect(draftToInput(draftFromInput(redis)).target).toEqual({
      protocol: "tcp",
      host: "127.0.0.1",
      port: 6379,
      framing: { kind: "delimiter", delimiterHex: "0d0a" },
    });
  });

  it("lets a script scenario's TCP target go without a framing, and asks every other scenario for one", () => {
    const tcp = { protocol: "tcp", host: "127.0.0.1", port: 7071 };
    const script = validateDraft(
      draftFromInput({ ...plan, target: tcp, scenario: { kind: "script", script: { sha256: "a".repeat(64) } } }),
    );
    expect(script.ok).toBe(true);
    const pingPong = validateDraft(draftFromInput({ ...plan, target: tcp }));
    expect(pingPong.ok ? {} : pingPong.errors).toEqual({
      "target.framing": expect.stringMatching(/^give the framing/),
    });
  });

  it("keeps fields the schema does not know, so an imported file loses nothing on save", () => {
    expect(draftToInput(draftFromInput({ ...plan, notes: ["x"] })).notes).toEqual(["x"]);
  });

  it("starts a new plan with working values and a name to fill", () => {
    const draft = emptyDraft();
    expect((draft.target as DraftObject).url).toBe("ws://127.0.0.1:7070/ws");
    expect(draft.load).toMatchObject({ clients: "100", durationSec: "30", rampUpSec: "0" });
    const result = validateDraft(draft);
    expect(!result.ok && result.errors.name).toBe("give the plan a name");
    expect(validateDraft({ ...draft, name: "ok" }).ok).toBe(true);
  });

  it("switches a union to another variant, carrying the fields both have", () => {
    const scenario = union("scenario");
    const other = scenario.variants.find((variant) => variant.value !== "ping-pong");
    const previous = { kind: "ping-pong", intervalMs: "200", messageBytes: "128" };
    if (!other) return; // Only one scenario in the schema: nothing to switch to.
    const switched = initialVariant(scenario, other.value, "scenario", previous);
    expect(switched.kind).toBe(other.value);
    const shared = other.fields.find((field) => field.key === "messageBytes");
    if (shared) expect(switched.messageBytes).toBe("128");
  });
});

describe("validateDraft", () => {
  it("says 'enter a number' for text in a number box", () => {
    const draft = draftFromInput(plan);
    const result = validateDraft({ ...draft, load: { ...(draft.load as DraftObject), clients: "lots" } });
    expect(!result.ok && result.errors["load.clients"]).toBe("enter a number");
  });

  it("puts schema errors on their paths", () => {
    const result = validateDraft(
      draftFromInput({
        ...plan,
        target: { protocol: "websocket", url: "http://x" },
        load: { ...plan.load, clients: 0 },
      }),
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors["target.url"]).toMatch(/ws:\/\//);
      expect(result.errors["load.clients"]).toBe("must be at least 1");
    }
  });

  it("checks agent label names like the agents page does", () => {
    const draft = draftFromInput({ ...plan, agents: { labels: { "bad name": "x" } } });
    const result = validateDraft(draft);
    expect(!result.ok && result.errors["agents.labels"]).toMatch(/letters, digits/);
  });
});

describe("expectedMessagesPerSec", () => {
  it("is clients × pings per second for ping-pong, null while unusable", () => {
    expect(expectedMessagesPerSec(draftFromInput(plan))).toBe(2500);
    expect(expectedMessagesPerSec(draftFromInput({ ...plan, load: { clients: 0 } }))).toBeNull();
  });
});

describe("field errors of a plan update", () => {
  it("drops the spec. prefix so they land on the editor's fields, and keeps others", () => {
    expect(
      specFieldErrors([
        { path: "spec.load.clients", message: "too small" },
        { path: "spec", message: "bad" },
        { path: "version", message: "old" },
      ]),
    ).toEqual([
      { path: "load.clients", message: "too small" },
      { path: "form", message: "bad" },
      { path: "version", message: "old" },
    ]);
  });
});
