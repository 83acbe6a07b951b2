import { describe, expect, it } from "vitest";
import { fromInput, initialValue, toInput } from "./schema-form";
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
      node: { kind: "object-list", minItems: 1, item: { kind: "object", fields: [{ key: "clients", required: true, node: { kind: "integer" } }] } },
    },
    { key: "extra", required: false, node: { kind: "unsupported" } },
  ],
};

describe("schema form values", () => {
  it("round-trips every kind of field", () => {
    const input = { count: 3, mode: 4, fast: false, hosts: ["a", "b"], headers: { auth: "x" }, stages: [{ clients: 5 }], extra: { any: [1] } };
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
