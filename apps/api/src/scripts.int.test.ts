import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlanView } from "@throng/protocol/api";
import type { ErrorBody } from "@throng/protocol/errors";
import { SCRIPT_BUNDLE_MAX_BYTES, ScriptList, ScriptSummary, ScriptView } from "@throng/protocol/script-bundle";
import { SCRIPT_UPLOAD_BODY_LIMIT } from "./routes/scripts.routes";
import { enrolTestAgent } from "./testing/test-agent";
import { startTestApi, type TestApi, type TestUser } from "./testing/test-api";

let api: TestApi;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  api = await startTestApi();
  [alice, bob] = [await api.signUp("Alice"), await api.signUp("Bob")];
});
afterAll(async () => api?.close());

const sha256 = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const scriptPlan = (script: object) => ({
  name: "bots",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "script", script },
  load: { clients: 2, durationSec: 5 },
});

describe("script bundles over HTTP (issue 15 §2)", () => {
  it("POST answers 201 with the summary, 200 with the same one for the same bytes; GET lists newest first and reads with the source", async () => {
    const first = "export default async function client(ctx) { ctx.count('one', 1); }\n";
    const second = "export default async function client(ctx) { ctx.count('two', 1); }\n";
    const created = await alice.request("POST", "/api/scripts", { name: "one.mjs", source: first });
    expect(created.status).toBe(201);
    expect(ScriptSummary.parse(created.json)).toMatchObject({
      sha256: sha256(first),
      name: "one.mjs",
      sizeBytes: first.length,
    });
    const again = await alice.request("POST", "/api/scripts", { name: "one again.mjs", source: first });
    expect(again).toEqual({ status: 200, json: created.json });
    await alice.request("POST", "/api/scripts", { name: "two.mjs", source: second });
    const list = ScriptList.parse((await alice.request("GET", "/api/scripts")).json);
    expect(list.scripts.map((s) => s.name)).toEqual(["two.mjs", "one.mjs"]);
    const view = await alice.request("GET", `/api/scripts/${sha256(first).toUpperCase()}`);
    expect(view.status).toBe(200);
    expect(ScriptView.parse(view.json).source).toBe(first);
  });

  it("names the bad parameter or field: a hash that is not 64 hex digits, an empty body, an unknown hash", async () => {
    const bad = await alice.request<ErrorBody>("GET", "/api/scripts/not-a-hash");
    expect(bad.status).toBe(400);
    expect(bad.json.error.fields).toEqual([{ path: "sha256", message: "must be a SHA-256: 64 lower-case hex digits" }]);
    const empty = await alice.request<ErrorBody>("POST", "/api/scripts", { name: " ", source: "" });
    expect(empty.status).toBe(400);
    expect(empty.json.error.fields?.map((f) => f.path)).toEqual(["name", "source"]);
    const unknown = await alice.request<ErrorBody>("GET", `/api/scripts/${"0".repeat(64)}`);
    expect(unknown.status).toBe(404);
    expect(unknown.json.error.message).toMatch(/upload it first/);
  });

  it("takes a bundle of SCRIPT_BUNDLE_MAX_BYTES, refuses one byte more by its field, and a body past the route's limit with 413", async () => {
    const largest = `//${"x".repeat(SCRIPT_BUNDLE_MAX_BYTES - 2)}`;
    expect((await alice.request("POST", "/api/scripts", { name: "largest.mjs", source: largest })).status).toBe(201);
    const over = await alice.request<ErrorBody>("POST", "/api/scripts", { name: "over.mjs", source: `${largest}x` });
    expect(over.status).toBe(400);
    expect(over.json.error.fields).toEqual([{ path: "source", message: "must be at most 5 MiB" }]);
    const huge = await alice.request<ErrorBody>("POST", "/api/scripts", {
      name: "huge.mjs",
      source: "x".repeat(SCRIPT_UPLOAD_BODY_LIMIT),
    });
    expect(huge.status).toBe(413);
    expect(huge.json.error.message).toBe(
      `The request body is larger than this route takes (at most ${SCRIPT_UPLOAD_BODY_LIMIT} bytes)`,
    );
  });

  it("keeps organisations apart: Bob cannot read Alice's script, save a plan with it, or read her plan that uses it", async () => {
    const source = "export default async () => { /* alice's bots */ };";
    const { sha256: hash } = ScriptSummary.parse(
      (await alice.request("POST", "/api/scripts", { name: "a.mjs", source })).json,
    );
    const plan = await alice.request("POST", "/api/plans", scriptPlan({ sha256: hash }));
    expect(plan.status).toBe(201);
    const planId = PlanView.parse(plan.json).id;
    expect((await bob.request("GET", `/api/scripts/${hash}`)).status).toBe(404);
    expect(ScriptList.parse((await bob.request("GET", "/api/scripts")).json).scripts).toEqual([]);
    expect((await bob.request("GET", `/api/plans/${planId}`)).status).toBe(404);
    const bobsPlan = await bob.request<ErrorBody>("POST", "/api/plans", scriptPlan({ sha256: hash }));
    expect(bobsPlan.status).toBe(400);
    expect(bobsPlan.json.error.fields).toEqual([
      {
        path: "scenario.script.sha256",
        message: expect.stringMatching(/^no script bundle with this SHA-256 in your organisation: upload it first/),
      },
    ]);
    const byPath = await alice.request<ErrorBody>("POST", "/api/plans", scriptPlan({ path: "bots.mjs" }));
    expect(byPath.status).toBe(400);
    expect(byPath.json.error.fields?.[0]?.path).toBe("scenario.script.path");
  });

  it("is declared in the OpenAPI document with its body, answers and permissions", async () => {
    const doc = (await (await fetch(`${api.url}/api/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(doc.paths["/api/scripts"]?.post).toMatchObject({
      "x-permission": "plan.write",
      requestBody: expect.anything(),
    });
    expect(doc.paths["/api/scripts"]?.get?.["x-permission"]).toBe("plan.read");
    expect(doc.paths["/api/scripts/{sha256}"]?.get?.parameters).toEqual([
      {
        name: "sha256",
        in: "path",
        required: true,
        schema: expect.objectContaining({ type: "string", pattern: "^[0-9a-fA-F]{64}$" }),
      },
    ]);
  });

  it("§12 answers an agent's script-fetch from its own organisation only: the source for its org's hash, an error for another org's", async () => {
    const source = "export default async () => { /* fetched */ };";
    const { sha256: hash } = ScriptSummary.parse(
      (await alice.request("POST", "/api/scripts", { name: "f.mjs", source })).json,
    );
    const agentOf = async (user: TestUser) => {
      const { agent } = await enrolTestAgent(api.gatewayUrl, user);
      return agent;
    };
    const [alicesAgent, bobsAgent] = [await agentOf(alice), await agentOf(bob)];
    alicesAgent.send({ type: "script-fetch", payload: { sha256: hash } });
    expect(await alicesAgent.next("script-bundle")).toEqual({ sha256: hash, source });
    bobsAgent.send({ type: "script-fetch", payload: { sha256: hash } });
    const refused = await bobsAgent.next("script-bundle");
    expect(refused).toEqual({ sha256: hash, error: expect.stringContaining("no script bundle") });
    expect(JSON.stringify(refused)).not.toContain("fetched");
    await Promise.all([alicesAgent.close(), bobsAgent.close()]);
  });
});
