import { describe, expect, it } from "vitest";
import { blankChoiceText, fieldText } from "./plan-field-text";
import { PLAN_NODE } from "./plan-draft";
import type { FieldSpec } from "./schema-node";

describe("fieldText", () => {
  it("uses the variant's own text, then the section's, then the field name", () => {
    expect(fieldText("scenario.ping-pong.intervalMs", ["ping-pong"]).label).toBe("Ping interval");
    expect(fieldText("scenario.echo-flood.timeoutMs", ["echo-flood"])).toMatchObject({ label: "Timeout", unit: "ms" });
    expect(fieldText("scenario.some-new.burstSizeBytes", ["some-new"])).toEqual({ label: "Burst size", unit: "B" });
    expect(fieldText("load.shape.step-up.stepDurationSec", ["step-up"])).toEqual({ label: "Step duration", unit: "s" });
  });
});

describe("blankChoiceText", () => {
  type Select = { textKey: string; variants: string[]; defaultValue: unknown };
  // Every optional select of the plan form, found by walking the schema as the form draws it.
  function selects(fields: readonly FieldSpec[], textKey: string, variants: string[], out: Select[]): Select[] {
    for (const field of fields) {
      const key = textKey ? `${textKey}.${field.key}` : field.key;
      const { node } = field;
      if (["choice", "boolean", "union", "keyed-union"].includes(node.kind) && !field.required)
        out.push({ textKey: key, variants, defaultValue: field.defaultValue });
      if (node.kind === "object") selects(node.fields, key, variants, out);
      if (node.kind === "object-list") selects(node.item.fields, key, variants, out);
      if (node.kind === "keyed-union") for (const v of node.variants) selects(v.fields, key, variants, out);
      const union = node.kind === "union" ? node : node.kind === "union-list" ? node.item : null;
      for (const v of union?.variants ?? []) selects(v.fields, `${key}.${v.value}`, [...variants, v.value], out);
    }
    return out;
  }

  it("says what every optional select of the plan form means when left blank, never a bare 'default'", () => {
    const unexplained = selects(PLAN_NODE.fields, "", [], [])
      .map((select) => ({
        key: select.textKey,
        text: blankChoiceText(select.textKey, select.variants, select.defaultValue),
      }))
      .filter(({ text }) => text === "none" || text === "default");
    expect(unexplained).toEqual([]);
  });

  it("names the default: the schema's own, else the documented one", () => {
    expect(blankChoiceText("target.websocket.frames", ["websocket"])).toBe("default (text)");
    expect(blankChoiceText("load.shape", [])).toBe("default (ramp-up then hold)");
    expect(blankChoiceText("scenario.ping-pong.reply.expect", ["ping-pong"])).toBe("anything");
  });
});
