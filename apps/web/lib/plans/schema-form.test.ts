import { describe, expect, it } from "vitest";
import { fromInput, initialValue, initialVariant, moveItem, scalarFromText, toInput, variantFor } from "./schema-form";
import type { NodeSpec } from "./schema-node";

const node: NodeSpec = {
  kind: "object",
  fields: [
    { key: "count", required: true, node: { kind: "integer", min: 1 } },
    { key: "mode", required: false, node: { kind: "choice", options: [2, 4] } },
    { key: "fast", required: false, node: { kind: "boolean" } },
    { key: "hosts", required: false, node: { kind: "string-list" } },
    { key: "headers", required: false, node: { kind: "string-record" } },
    {
      key: "stages",
      required: false,
      node: {
        kind: "object-list",
        minItems: 1,
        item: { kind: "object", fields: [{ key: "clients", required: true, node: { kind: "integer" } }] },
      },
    },
    { key: "extra", required: false, node: { kind: "unsupported" } },
  ],
};

describe("schema form values", () => {
  it("round-trips every kind of field", () => {
    const input = {
      count: 3,
      mode: 4,
      fast: false,
      hosts: ["a", "b"],
      headers: { auth: "x" },
      stages: [{ clients: 5 }],
      extra: { any: [1] },
    };
    expect(toInput(node, fromInput(node, input))).toEqual(input);
  });

  it("leaves blank optional fields out so the agent's defaults apply", () => {
    expect(toInput(node, { count: "7", mode: "", fast: "", hosts: " ", headers: [] })).toEqual({ count: 7 });
  });

  it("hands text in a number box to the schema as text, so its error names the field", () => {
    expect(toInput(node, { count: "7x" })).toEqual({ count: "7x" });
  });

  it("starts required fields and lists with their minimum", () => {
    expect(initialValue(node, "x")).toEqual({ count: "" });
    const stages = (node as Extract<NodeSpec, { kind: "object" }>).fields[5]!.node;
    expect(initialValue(stages, "x.stages")).toEqual([{ clients: "" }]);
  });
});

const rule: NodeSpec = {
  kind: "keyed-union",
  variants: [
    { value: "prefixHex", fields: [{ key: "prefixHex", required: true, node: { kind: "string" } }] },
    { value: "regex", fields: [{ key: "regex", required: true, node: { kind: "string" } }] },
    {
      value: "json",
      fields: [
        {
          key: "json",
          required: true,
          node: {
            kind: "object",
            fields: [
              { key: "field", required: true, node: { kind: "string" } },
              { key: "equals", required: false, node: { kind: "scalar" } },
            ],
          },
        },
      ],
    },
  ],
};
const steps: NodeSpec = {
  kind: "union-list",
  minItems: 0,
  maxItems: 32,
  item: {
    kind: "union",
    discriminator: "kind",
    variants: [
      { value: "send", fields: [{ key: "body", required: true, node: { kind: "string" } }] },
      {
        value: "expect",
        fields: [
          { key: "reply", required: true, node: rule },
          { key: "failWhen", required: false, node: rule },
          { key: "timeoutMs", required: false, node: { kind: "integer" } },
        ],
      },
      {
        value: "http",
        fields: [{ key: "expectStatus", required: false, node: { kind: "number-list", integer: true } }],
      },
    ],
  },
};

describe("lists of union items (session steps) and keyed unions (reply rules)", () => {
  it("round-trips steps of every kind, in order, with their rules", () => {
    const input = [
      { kind: "send", body: "PING" },
      { kind: "expect", reply: { prefixHex: "2b504f4e47" }, failWhen: { regex: "^-" }, timeoutMs: 500 },
      { kind: "expect", reply: { json: { field: "type", equals: "ok" } } },
      { kind: "http", expectStatus: [200, 201] },
    ];
    const draft = fromInput(steps, input);
    expect((draft as Record<string, unknown>[])[1]).toEqual({
      kind: "expect",
      reply: { prefixHex: "2b504f4e47" },
      failWhen: { regex: "^-" },
      timeoutMs: "500",
    });
    expect((draft as Record<string, unknown>[])[3]).toEqual({ kind: "http", expectStatus: "200, 201" });
    expect(toInput(steps, draft)).toEqual(input);
  });

  it("starts a new step of the chosen kind with its first rule, and a rule switched to another kind with that kind's fields", () => {
    const item = (steps as Extract<NodeSpec, { kind: "union-list" }>).item;
    expect(initialVariant(item, "expect", "scenario.session")).toEqual({ kind: "expect", reply: { prefixHex: "" } });
    expect(
      initialVariant(rule as Extract<NodeSpec, { kind: "keyed-union" }>, "json", "x", { prefixHex: "2b" }),
    ).toEqual({ json: { field: "" } });
    expect(initialValue(steps, "scenario.session")).toEqual([]);
  });

  it("changes a step's kind in place: the new kind's fields start afresh, the fields both kinds share are kept", () => {
    const item = (steps as Extract<NodeSpec, { kind: "union-list" }>).item;
    const expectStep = { kind: "expect", reply: { regex: "^\\+OK" }, timeoutMs: "500" };
    expect(initialVariant(item, "send", "scenario.session", expectStep)).toEqual({ kind: "send", body: "" });
    expect(initialVariant(item, "expect", "scenario.session", { kind: "send", body: "PING" })).toEqual({
      kind: "expect",
      reply: { prefixHex: "" },
    });
    expect(initialVariant(item, "expect", "scenario.session", expectStep)).toEqual(expectStep);
  });

  it("tells a keyed union's variant by the key it holds", () => {
    const keyed = rule as Extract<NodeSpec, { kind: "keyed-union" }>;
    expect(variantFor(keyed, { regex: "^\\+" })?.value).toBe("regex");
    expect(variantFor(keyed, { other: 1 })).toBeUndefined();
    expect(variantFor(keyed, "text")).toBeUndefined();
  });

  it('reads an equals box as a number, true/false or "quoted" text, and shows each back the same way', () => {
    expect(scalarFromText("ok")).toBe("ok");
    expect(scalarFromText("5")).toBe(5);
    expect(scalarFromText("true")).toBe(true);
    expect(scalarFromText('"5"')).toBe("5");
    expect(scalarFromText(" ")).toBeUndefined();
    for (const equals of ["ok", 5, true, "5", "true"]) {
      const input = [{ kind: "expect", reply: { json: { field: "a", equals } } }];
      expect(toInput(steps, fromInput(steps, input))).toEqual(input);
    }
  });

  it("leaves blank optional parts of a step out, and keeps a step the form does not know as it is", () => {
    expect(
      toInput(steps, [
        { kind: "expect", reply: { regex: "x" }, timeoutMs: "" },
        { kind: "http", expectStatus: " " },
      ]),
    ).toEqual([{ kind: "expect", reply: { regex: "x" } }, { kind: "http" }]);
    expect(toInput(steps, fromInput(steps, [{ kind: "respond", when: { regex: "x" } }]))).toEqual([
      { kind: "respond", when: { regex: "x" } },
    ]);
  });

  it("moves an item up and down, and leaves the list as it is at its ends", () => {
    expect(moveItem(["a", "b", "c"], 2, 1)).toEqual(["a", "c", "b"]);
    expect(moveItem(["a", "b", "c"], 0, 1)).toEqual(["b", "a", "c"]);
    expect(moveItem(["a", "b"], 0, -1)).toEqual(["a", "b"]);
    expect(moveItem(["a", "b"], 1, 2)).toEqual(["a", "b"]);
  });
});
