import { describe, expect, it } from "vitest";
import { planJsonSchema } from "./plan-json-schema";

type Schema = {
  description?: string;
  properties?: Record<string, Schema>;
  oneOf?: Schema[];
  anyOf?: Schema[];
  items?: Schema;
  enum?: unknown[];
};

const schema = planJsonSchema() as Schema;
const variant = (union: Schema, key: string, value: string) =>
  (union.oneOf ?? union.anyOf ?? []).find((option) => option.properties?.[key]?.enum?.[0] === value)!;

describe("planJsonSchema", () => {
  it("is draft 4, the dialect the editor's validator reads", () => {
    expect((schema as { $schema?: string }).$schema).toMatch(/draft-04/);
  });

  it("describes each key by the form's label, unit and hint", () => {
    expect(schema.properties!.load!.properties!.clients!.description).toBe(
      "**Clients** (clients) — Simulated players at most at once, each with its own connection.",
    );
    expect(schema.properties!.name!.description).toMatch(/^\*\*Plan name\*\*/);
    expect(schema.properties!.slos!.description).toMatch(/^\*\*SLOs\*\*/);
  });

  it("reads a union variant's keys with the variant's own text", () => {
    const pingPong = variant(schema.properties!.scenario!, "kind", "ping-pong");
    expect(pingPong.properties!.intervalMs!.description).toMatch(/^\*\*Ping interval\*\* \(ms\)/);
    const websocket = variant(schema.properties!.target!, "protocol", "websocket");
    expect(websocket.properties!.url!.description).toMatch(/^\*\*Target URL\*\*/);
  });

  it("offers the scenario kinds as enum values for completion", () => {
    const kinds = (schema.properties!.scenario!.oneOf ?? schema.properties!.scenario!.anyOf ?? []).map(
      (option) => option.properties?.kind?.enum?.[0],
    );
    expect(kinds).toContain("ping-pong");
    expect(kinds).toContain("movement-sync");
  });
});
