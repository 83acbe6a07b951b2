import { beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@throng/protocol/errors";
import type { PlanView } from "@throng/protocol/api";
import { pingPlan } from "./testing/plans";
import { signedUpApiPerFile } from "./testing/signed-up-api";

// Defects a fuzzer (schemathesis, issue 19) found: bad input answered 500, and undeclared methods 404.
const plan = pingPlan;

const { api, user } = signedUpApiPerFile("Fuzzed");

function validationError(answer: { status: number; json: unknown }) {
  expect(answer.status).toBe(400);
  const body = ErrorBody.parse(answer.json);
  expect(body.error.code).toBe("validation_failed");
  return body.error;
}

describe("bad input is a 400 naming the field, never a 500", () => {
  it("an SSO domain too long for its proof's TXT name (claimed, then its verification was a 503: DNS refused the name)", async () => {
    const long = `${"a".repeat(60)}.${"b".repeat(60)}.${"c".repeat(60)}.${"d".repeat(50)}.com`;
    expect(validationError(await user().request("POST", "/api/sso/domains", { domain: long })).fields?.[0]?.path).toBe(
      "domain",
    );
    expect(validationError(await user().request("POST", `/api/sso/domains/${long}/verify`)).fields?.[0]?.path).toBe(
      "domain",
    );
  });

  it("an invitation id that is not a UUID (was a database error)", async () => {
    const error = validationError(await user().request("DELETE", "/api/invitations/7%C3%BB"));
    expect(error.fields).toEqual([{ path: "id", message: "must be a UUID" }]);
  });

  it("an API token id that is not a UUID (was a database error)", async () => {
    const error = validationError(await user().request("DELETE", "/api/tokens/0"));
    expect(error.fields?.[0]?.path).toBe("id");
  });

  it("text holding a lone UTF-16 surrogate, anywhere in a JSON body (PostgreSQL refuses it)", async () => {
    // Raw JSON text: JSON.stringify would write the same escape, but this is what a client puts on the wire.
    const body = JSON.stringify(plan).replace('"lobby ping"', '"lobby \\ud800 ping"');
    const error = validationError(await user().request("POST", "/api/plans", body));
    expect(error.fields).toEqual([{ path: "name", message: "contains invalid Unicode (a lone surrogate)" }]);
    expect(error.message).toContain("name: contains invalid Unicode");
    const nested = validationError(
      await user().request("PUT", "/api/org/settings", '{"targetAllowList":["ok","\\udfff"]}'),
    );
    expect(nested.fields?.[0]?.path).toBe("targetAllowList.1");
    const key = validationError(
      await user().request(
        "PUT",
        "/api/agents/00000000-0000-4000-8000-000000000000/labels",
        '{"labels":{"\\ud800":"x"}}',
      ),
    );
    expect(key.fields?.[0]?.message).toBe("its name contains invalid Unicode (a lone surrogate)");
  });

  it("a NUL character in text (PostgreSQL's jsonb refused it: 'unsupported Unicode escape sequence')", async () => {
    const body = JSON.stringify(plan).replace('"lobby ping"', '"lobby \\u0000 ping"');
    const error = validationError(await user().request("POST", "/api/plans", body));
    expect(error.fields).toEqual([
      { path: "name", message: "contains a NUL character (U+0000), which cannot be stored" },
    ]);
  });

  it("JSON null where a body may be left out is refused, not read as the defaults", async () => {
    const error = validationError(await user().request("POST", "/api/enrolment-tokens", "null"));
    expect(error.fields?.[0]?.path).toBe("(root)");
    expect((await user().request("POST", "/api/enrolment-tokens")).status).toBe(201);
  });

  it("a path parameter longer than the router takes is a 400 ErrorBody (was Fastify's own 414 shape)", async () => {
    const error = validationError(await user().request("DELETE", `/api/members/${"0".repeat(300)}`));
    expect(error.message).toContain("longer than");
    const declaredMax = validationError(await user().request("GET", `/api/public/reports/${"0".repeat(201)}`));
    expect(declaredMax.fields?.[0]?.path).toBe("token");
  });

  it("invalid UTF-8 or a NUL in a query string or path parameter", async () => {
    // %ED%A0%80 is a surrogate encoded as UTF-8, which no decoder accepts; %00 decodes to NUL.
    for (const path of [
      "/api/runs/compare?ids=%ED%A0%80",
      "/api/runs/compare?ids=a%00b",
      "/api/runs/%ED%A0%80",
      "/api/targets/a%00b/estimates",
    ]) {
      const answer = await user().request("GET", path);
      expect(answer.status, path).toBe(400);
      expect(ErrorBody.parse(answer.json).error.code, path).toBe("validation_failed");
    }
    const nul = await user().request<ErrorBody>("GET", "/api/targets/a%00b/estimates");
    expect(nul.json.error.fields?.[0]).toEqual({
      path: "name",
      message: "contains a NUL character (U+0000), which cannot be stored",
    });
  });

  it("a well-formed surrogate pair (an emoji) is text like any other", async () => {
    const answer = await user().request<PlanView>("POST", "/api/plans", { ...plan, name: "lobby 🎮" });
    expect(answer.status).toBe(201);
    expect(answer.json.name).toBe("lobby 🎮");
  });

  it("a plan version past PostgreSQL's integer (was a numeric-out-of-range 500)", async () => {
    const { json: created } = await user().request<PlanView>("POST", "/api/plans", plan);
    const error = validationError(
      await user().request("PUT", `/api/plans/${created.id}`, { version: 9007199254740990, spec: plan }),
    );
    expect(error.fields?.[0]?.path).toBe("version");
  });
});

describe("methods", () => {
  it("a known path asked with a method it lacks answers 405 with Allow", async () => {
    const answer = await fetch(`${api().url}/api/plans`, { method: "DELETE" });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("GET, POST");
    expect(ErrorBody.parse(await answer.json()).error.code).toBe("method_not_allowed");
    const parametric = await fetch(`${api().url}/api/plans/00000000-0000-4000-8000-000000000000/runs`, {
      method: "GET",
    });
    expect(parametric.status).toBe(405);
    expect(parametric.headers.get("allow")).toBe("POST");
  });

  it("even when the method fails body parsing first (QUERY without a content type)", async () => {
    const answer = await fetch(`${api().url}/api/agents/0/revoke`, { method: "QUERY" });
    expect(answer.status).toBe(405);
    expect(answer.headers.get("allow")).toBe("POST");
  });

  it("a static path reached through a parametric sibling (PUT /api/plans/try is not PUT /api/plans/:id) is a 405", async () => {
    const answer = await user().request("PUT", "/api/plans/try", { version: 1, spec: plan });
    expect(answer.status).toBe(405);
    expect(ErrorBody.parse(answer.json).error.code).toBe("method_not_allowed");
    const accept = await fetch(`${api().url}/api/invitations/accept`, { method: "OPTIONS" });
    expect(accept.headers.get("allow")).toBe("POST");
  });

  it("Better Auth's bodiless 404 stays bodiless", async () => {
    const answer = await fetch(`${api().url}/api/auth/no-such-endpoint`);
    expect(answer.status).toBe(404);
    expect(await answer.text()).toBe("");
  });

  it("an unknown path is still a 404", async () => {
    const answer = await fetch(`${api().url}/api/nothing-here`, { method: "DELETE" });
    expect(answer.status).toBe(404);
  });
});

describe("the OpenAPI document says what the routes check", () => {
  type Operation = {
    parameters?: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
    security?: unknown[];
    responses: Record<string, unknown>;
    requestBody?: { required: boolean };
  };
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    paths = ((await (await fetch(`${api().url}/api/openapi.json`)).json()) as { paths: typeof paths }).paths;
  });

  it("declares every path parameter of every route with its schema (UUIDs as uuid)", () => {
    for (const [path, operations] of Object.entries(paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, operation] of Object.entries(operations)) {
        const declared = (operation.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
        expect(declared, `${method.toUpperCase()} ${path}`).toEqual(names);
      }
    }
    expect(paths["/api/tokens/{id}"]?.delete?.parameters?.[0]?.schema).toMatchObject({
      type: "string",
      format: "uuid",
    });
    expect(paths["/api/invitations/{id}"]?.delete?.parameters?.[0]?.schema).toMatchObject({ format: "uuid" });
    expect(paths["/api/runs/compare"]?.get?.parameters).toEqual([
      expect.objectContaining({ name: "ids", in: "query", required: true }),
    ]);
  });

  it("declares the statuses a route answers, and who may call it", () => {
    // 503 on every route: the database unavailable (http/errors.ts maps it once, with Retry-After).
    expect(Object.keys(paths["/api/tokens/{id}"]!.delete!.responses).sort()).toEqual([
      "204",
      "400",
      "401",
      "403",
      "404",
      "413",
      "415",
      "503",
    ]);
    expect(Object.keys(paths["/api/plans"]!.post!.responses)).toContain("201");
    expect(paths["/health"]?.get?.security).toEqual([]);
    expect(paths["/api/orgs"]?.get?.security).toEqual([{ session: [] }]);
    expect(paths["/api/plans"]?.get?.security).toEqual([{ session: [] }, { apiToken: [] }]);
    expect(paths["/api/invitations"]?.post?.requestBody?.required).toBe(false);
    expect(paths["/api/plans"]?.post?.requestBody?.required).toBe(true);
  });
});

/** A JSON Schema as read from the document: the keywords these tests read, any other left unknown. */
interface Schema {
  pattern?: string;
  const?: unknown;
  not?: Schema;
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  [keyword: string]: unknown;
}
/** Every subschema of `node` (a JSON Schema) for which `match` holds, depth first. */
function subschemas(node: unknown, match: (schema: Schema) => boolean, found: Schema[] = []) {
  if (Array.isArray(node)) {
    for (const item of node) subschemas(item, match, found);
  } else if (node && typeof node === "object") {
    if (match(node as Schema)) found.push(node as Schema);
    for (const value of Object.values(node)) subschemas(value, match, found);
  }
  return found;
}
const matches = (schema: Schema | undefined, text: string) => new RegExp(String(schema?.pattern)).test(text);

// Schemathesis's positive_data_acceptance check (issue 19): a request the document calls valid was refused with 400,
// or answered with a status the document did not list. Each: the document now states the rule, or the API takes it.
describe("what the document calls valid, the API takes (and what it refuses, the document refuses)", () => {
  let paths: Record<
    string,
    Record<
      string,
      {
        parameters?: { name: string; schema: Schema }[];
        requestBody?: { content: Record<string, { schema: Schema }> };
        responses: Record<string, unknown>;
      }
    >
  >;
  const body = (path: string, method: string) => paths[path]![method]!.requestBody!.content["application/json"]!.schema;
  beforeAll(async () => {
    paths = ((await (await fetch(`${api().url}/api/openapi.json`)).json()) as { paths: typeof paths }).paths;
  });

  it("an unknown property named with a NUL is stripped like any unknown property (was a 400 the document did not explain)", async () => {
    const answer = await user().request("POST", "/api/enrolment-tokens", '{"expiresInMinutes":60,"x\\u0000y":1}');
    expect(answer.status).toBe(201);
    expect(body("/api/enrolment-tokens", "post").additionalProperties).toBeUndefined();
    // A NUL in what is kept is still refused, and the document says so on every free string of a request.
    validationError(
      await user().request("POST", "/api/plans", JSON.stringify(plan).replace('"lobby ping"', '"lobby \\u0000 ping"')),
    );
    const name = body("/api/plans", "post").properties?.name;
    expect(
      subschemas(name?.not, (s) => typeof s.pattern === "string" && new RegExp(s.pattern).test("a\u0000b")),
    ).not.toEqual([]);
  });

  it("a blank name where the route trims first is refused by the document too", async () => {
    const channel = { kind: "slack", name: "\t", url: "https://hooks.example.com/x", events: ["failed"] };
    expect(validationError(await user().request("POST", "/api/notification-channels", channel)).fields?.[0]?.path).toBe(
      "name",
    );
    const name = body("/api/notification-channels", "post").properties?.name;
    expect(subschemas(name?.not, (s) => matches(s, "\t \u00a0") && !matches(s, " a "))).not.toEqual([]);
  });

  it("a script hash and the runs compared are patterns in the document, as the route checks them", async () => {
    validationError(await user().request("GET", "/api/scripts/0"));
    const sha = paths["/api/scripts/{sha256}"]!.get!.parameters![0]!.schema;
    expect([matches(sha, "0"), matches(sha, "A".repeat(64))]).toEqual([false, true]);
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
    validationError(await user().request("GET", `/api/runs/compare?ids=${a}`));
    const ids = paths["/api/runs/compare"]!.get!.parameters![0]!.schema;
    expect([matches(ids, a), matches(ids, `${a},${b}`)]).toEqual([false, true]);
  });

  it("a note patch needs a note or tags: minProperties in the document", async () => {
    validationError(await user().request("PATCH", `/api/runs/${crypto.randomUUID()}`, {}));
    expect(body("/api/runs/{id}", "patch")).toMatchObject({ additionalProperties: false, minProperties: 1 });
  });

  it("plan rules JSON Schema can state are in the document: a ws:// URL, a ping's size or message, a script SLO's name", async () => {
    const spec = body("/api/plans", "post");
    const url = subschemas(spec, (s) => s.properties?.protocol?.const === "websocket")[0]!.properties?.url;
    validationError(
      await user().request("POST", "/api/plans", { ...plan, target: { protocol: "websocket", url: "https://0.com" } }),
    );
    expect([matches(url, "https://0.com"), matches(url, " ws://127.0.0.1:7070/ws")]).toEqual([false, true]);
    const ping = subschemas(spec, (s) => s.properties?.kind?.const === "ping-pong")[0]!;
    expect(ping.anyOf).toEqual([{ required: ["messageBytes"] }, { required: ["message"] }]);
    const metric = subschemas(spec, (s) => typeof s.pattern === "string" && s.pattern.startsWith("^script:"))[0];
    validationError(
      await user().request("POST", "/api/plans", {
        ...plan,
        scenario: { kind: "script", script: { path: "x.mjs" } },
        slos: [{ metric: "script:", below: 1 }],
      }),
    );
    expect([matches(metric, "script:"), matches(metric, "script:connect-ms-p99")]).toEqual([false, true]);
  });

  it("declares the statuses these routes answer: 200 for an upsert by name that updates, 404 for a comparison of unknown runs, 503 for a missing agent package", async () => {
    const saved = { name: "upserted", spec: { ...plan, name: "upserted" } };
    expect((await user().request("PUT", "/api/plans/by-name", saved)).status).toBe(201);
    expect((await user().request("PUT", "/api/plans/by-name", saved)).status).toBe(200);
    expect(Object.keys(paths["/api/plans/by-name"]!.put!.responses)).toEqual(expect.arrayContaining(["200", "201"]));
    expect(
      (await user().request("GET", `/api/runs/compare?ids=${crypto.randomUUID()},${crypto.randomUUID()}`)).status,
    ).toBe(404);
    expect(Object.keys(paths["/api/runs/compare"]!.get!.responses)).toContain("404");
    expect(Object.keys(paths["/agent/throng-agent.tgz"]!.get!.responses)).toContain("503");
  });
});
