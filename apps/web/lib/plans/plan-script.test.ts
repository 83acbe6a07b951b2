// A script scenario in the plan form: parameters as name = value rows read as scalars, metrics as a list, the
// script by hash; in sync with the YAML view.
import { describe, expect, it } from "vitest";
import { draftFromInput, draftToInput, planField, validateDraft } from "./plan-draft";
import { parsePlanText, planToText } from "./plan-text";
import type { LabelRow } from "../shared/labels";
import type { DraftObject } from "./schema-form";
import type { NodeSpec } from "./schema-node";

const sha256 = "ab".repeat(32);
const scriptYaml = `name: redis script
target: { protocol: tcp, host: 127.0.0.1, port: 6379, framing: { kind: delimiter, delimiterHex: 0d0a } }
scenario:
  kind: script
  script: { sha256: ${sha256} }
  parameters: { message: PING, intervalMs: 200, verbose: false, code: "5" }
  roomSize: 4
  metrics: [{ name: connect-ms, kind: histogram }, { name: replies, kind: counter }]
  timeoutMs: 2000
load: { clients: 2, durationSec: 5 }
`;

const scriptFields = () =>
  (planField("scenario").node as Extract<NodeSpec, { kind: "union" }>).variants.find(
    (variant) => variant.value === "script",
  )!.fields;

describe("a script scenario in the plan form", () => {
  it("draws parameters as name = value rows of scalars and metrics as a list, so none falls back to the YAML view", () => {
    const kinds = Object.fromEntries(scriptFields().map((field) => [field.key, field.node]));
    expect(kinds.parameters).toEqual({ kind: "string-record", scalarValues: true });
    expect(kinds.metrics?.kind).toBe("object-list");
    expect(kinds.script?.kind).toBe("keyed-union");
  });

  it("goes from YAML to the form and back unchanged, numbers and booleans kept apart from text that looks like them", () => {
    const parsed = parsePlanText(scriptYaml, "yaml");
    if (!parsed.ok) throw new Error(parsed.error);
    const draft = draftFromInput(parsed.value);
    const rows = (draft.scenario as DraftObject).parameters as LabelRow[];
    expect(rows.map((row) => [row.key, row.value])).toEqual([
      ["message", "PING"],
      ["intervalMs", "200"],
      ["verbose", "false"],
      ["code", '"5"'],
    ]);
    expect(draftToInput(draft)).toEqual(parsed.value);
    expect(validateDraft(draft).ok).toBe(true);
    expect(planToText(draftToInput(draft), "yaml")).toContain(`sha256: ${sha256}`);
  });

  it("reads a parameter typed in the form as the scalar it spells", () => {
    const parsed = parsePlanText(scriptYaml, "yaml");
    if (!parsed.ok) throw new Error(parsed.error);
    const draft = draftFromInput(parsed.value);
    const scenario = draft.scenario as DraftObject;
    const rows = (scenario.parameters as LabelRow[]).map((row) =>
      row.key === "intervalMs"
        ? { ...row, value: "50" }
        : row.key === "message"
          ? { ...row, value: "HELLO there" }
          : row,
    );
    const input = draftToInput({ ...draft, scenario: { ...scenario, parameters: rows } });
    expect((input.scenario as { parameters: unknown }).parameters).toEqual({
      message: "HELLO there",
      intervalMs: 50,
      verbose: false,
      code: "5",
    });
  });
});
