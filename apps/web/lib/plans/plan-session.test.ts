// Session steps in the plan form: drawn from the protocol's schema, in sync with the YAML view, errors on the step.
import { describe, expect, it } from "vitest";
import { draftFromInput, draftToInput, planField, validateDraft } from "./plan-draft";
import { parsePlanText, planToText } from "./plan-text";
import type { DraftObject } from "./schema-form";
import type { NodeSpec } from "./schema-node";

const redisYaml = `name: redis ping
target: { protocol: tcp, host: 127.0.0.1, port: 6379, framing: { kind: delimiter, delimiterHex: 0d0a } }
scenario:
  kind: ping-pong
  intervalMs: 100
  message: { body: PING }
  match: { by: order }
  reply: { expect: { prefixHex: 2b504f4e47 } }
  session:
    - { kind: send, message: { body: "AUTH secret" } }
    - { kind: expect, reply: { prefixHex: 2b4f4b }, failWhen: { regex: "^-" }, timeoutMs: 2000 }
    - { kind: wait, ms: 50 }
    - { kind: expect, reply: { json: { field: type, equals: 5 } }, capture: [{ name: token, from: { regex: "t=(\\\\w+)" } }] }
load: { clients: 2, durationSec: 5 }
`;

const scenarioVariant = (kind: string) =>
  (planField("scenario").node as Extract<NodeSpec, { kind: "union" }>).variants.find(
    (variant) => variant.value === kind,
  )!;

describe("session steps in the plan form", () => {
  it("are an ordered list of step kinds the form draws, with reply rules it can choose from", () => {
    const session = scenarioVariant("ping-pong").fields.find((field) => field.key === "session")!.node;
    expect(session.kind).toBe("union-list");
    const item = (session as Extract<NodeSpec, { kind: "union-list" }>).item;
    expect(item.variants.map((variant) => variant.value).sort()).toEqual(["expect", "http", "send", "wait"]);
    const expectStep = item.variants.find((variant) => variant.value === "expect")!;
    const reply = expectStep.fields.find((field) => field.key === "reply")!.node;
    expect(reply.kind).toBe("keyed-union");
    expect(
      (reply as Extract<NodeSpec, { kind: "keyed-union" }>).variants.map((variant) => variant.value).sort(),
    ).toEqual(["bytes", "json", "prefixHex", "regex"]);
    const http = item.variants.find((variant) => variant.value === "http")!;
    expect(Object.fromEntries(http.fields.map((field) => [field.key, field.node.kind]))).toMatchObject({
      url: "string",
      headers: "string-record",
      expectStatus: "number-list",
      capture: "object-list",
    });
  });

  it("go from YAML to the form and back unchanged, and validate", () => {
    const parsed = parsePlanText(redisYaml, "yaml");
    if (!parsed.ok) throw new Error(parsed.error);
    const draft = draftFromInput(parsed.value);
    const steps = (draft.scenario as DraftObject).session as DraftObject[];
    expect(steps.map((step) => step.kind)).toEqual(["send", "expect", "wait", "expect"]);
    expect(steps[1]).toMatchObject({ reply: { prefixHex: "2b4f4b" }, timeoutMs: "2000" });
    expect(draftToInput(draft)).toEqual(parsed.value);
    expect(validateDraft(draft).ok).toBe(true);
    expect(planToText(draftToInput(draft), "yaml")).toContain("kind: expect");
  });

  it("put a step's schema error on that step's field", () => {
    const parsed = parsePlanText(redisYaml, "yaml");
    if (!parsed.ok) throw new Error(parsed.error);
    const draft = draftFromInput(parsed.value);
    const scenario = draft.scenario as DraftObject;
    const steps = [...(scenario.session as DraftObject[])];
    steps[1] = { ...steps[1], reply: { prefixHex: "2b4" } };
    steps[2] = { ...steps[2], ms: "soon" };
    const checked = validateDraft({ ...draft, scenario: { ...scenario, session: steps } });
    expect(checked.ok).toBe(false);
    if (checked.ok) return;
    expect(checked.errors["scenario.session.1.reply.prefixHex"]).toMatch(/hex bytes/);
    expect(checked.errors["scenario.session.2.ms"]).toBe("enter a number");
  });
});
