import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@throng/protocol/errors";
import { EnrolmentTokenCreated, Me, type PlanVersionView, PlanView } from "@throng/protocol/api";
import { NATIVE_IO_FILE } from "./routes/agent-install.routes";
import { startTestApi, type TestApi } from "./testing/test-api";
import { pingPlan } from "./testing/plans";

const plan = pingPlan;

let api: TestApi;
beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

describe("API (in-process Fastify, real PostgreSQL and Redis)", () => {
  it("GET /health reports the database and Redis", async () => {
    const response = await fetch(`${api.url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "ok", database: "ok", redis: "ok" });
  });

  it("sign-up creates the user's own organisation", async () => {
    const user = await api.signUp("Ada");
    const me = await user.request<Me>("GET", "/api/me");
    expect(me.status).toBe(200);
    const parsed = Me.parse(me.json);
    expect(parsed.user.email).toBe(user.email);
    expect(parsed.organization.name).toBe("Ada's team");
  });

  it("refuses org routes without a session, with an ErrorBody", async () => {
    const response = await fetch(`${api.url}/api/plans`);
    expect(response.status).toBe(401);
    expect(ErrorBody.parse(await response.json()).error.code).toBe("unauthenticated");
  });

  it("rejects a malformed plan naming each bad field", async () => {
    const user = await api.signUp("Bob");
    const bad = {
      ...plan,
      target: { protocol: "websocket", url: "http://nope" },
      load: { clients: 0, durationSec: 5 },
    };
    const answer = await user.request("POST", "/api/plans", bad);
    expect(answer.status).toBe(400);
    const body = ErrorBody.parse(answer.json);
    expect(body.error.code).toBe("validation_failed");
    expect(body.error.fields?.map((f) => f.path)).toEqual(expect.arrayContaining(["target.url", "load.clients"]));
  });

  it("rejects a body that is not JSON, and an id that is not a UUID", async () => {
    const user = await api.signUp("Cy");
    const notJson = await user.request("POST", "/api/plans", "{nope");
    expect(notJson.status).toBe(400);
    expect(ErrorBody.parse(notJson.json).error.message).toMatch(/JSON/);
    const badId = await user.request("GET", "/api/plans/42");
    expect(badId.status).toBe(400);
    expect(ErrorBody.parse(badId.json).error.fields?.[0]?.path).toBe("id");
  });

  it("stores a plan with defaults and keeps it to its organisation", async () => {
    const owner = await api.signUp("Dee");
    const stranger = await api.signUp("Eve");
    const created = await owner.request("POST", "/api/plans", plan);
    expect(created.status).toBe(201);
    const view = PlanView.parse(created.json);
    expect(view.spec.load.rampUpSec).toBe(0);
    expect((await owner.request("GET", `/api/plans/${view.id}`)).status).toBe(200);
    expect((await stranger.request("GET", `/api/plans/${view.id}`)).status).toBe(404);
    expect((await stranger.request<{ plans: PlanView[] }>("GET", "/api/plans")).json.plans).toEqual([]);
    expect((await stranger.request("POST", `/api/plans/${view.id}/runs`)).status).toBe(404);
  });

  it("edits a plan as a new version, refuses a lost update, and a run keeps the version it ran", async () => {
    const user = await api.signUp("Ver");
    const created = PlanView.parse((await user.request("POST", "/api/plans", plan)).json);
    expect(created.version).toBe(1);
    const edited = await user.request("PUT", `/api/plans/${created.id}`, {
      version: 1,
      spec: { ...plan, load: { clients: 20, durationSec: 5 } },
    });
    expect(PlanView.parse(edited.json)).toMatchObject({ version: 2, spec: { load: { clients: 20 } } });
    const stale = await user.request("PUT", `/api/plans/${created.id}`, { version: 1, spec: plan });
    expect(stale.status).toBe(409);
    expect(ErrorBody.parse(stale.json).error.message).toMatch(/now version 2, you edited 1/);
    const versions = (await user.request<{ versions: PlanVersionView[] }>("GET", `/api/plans/${created.id}/versions`))
      .json.versions;
    expect(
      versions.map((v: { version: number; spec: { load: { clients: number } } }) => [v.version, v.spec.load.clients]),
    ).toEqual([
      [2, 20],
      [1, 10],
    ]);
    expect(
      (
        await user.request<ErrorBody>("PUT", `/api/plans/${created.id}`, {
          version: 2,
          spec: { ...plan, load: { clients: 0, durationSec: 5 } },
        })
      ).json.error.fields?.[0]?.path,
    ).toBe("spec.load.clients");
  });

  it("creates an enrolment token shown once with the commands that use it", async () => {
    const user = await api.signUp("Fay");
    const answer = await user.request("POST", "/api/enrolment-tokens");
    expect(answer.status).toBe(201);
    const token = EnrolmentTokenCreated.parse(answer.json);
    expect(token.token).toMatch(/^thr_enr_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(token.commands.node).toContain(`--token ${token.token}`);
    expect(new Date(token.expiresAt).getTime() - Date.now()).toBeGreaterThan(59 * 60_000);
  });

  it("serves the agent installer and says clearly when the agent bundle is not built", async () => {
    const script = await fetch(`${api.url}/agent/install.sh`);
    expect(script.status).toBe(200);
    const text = await script.text();
    expect(text).toMatch(/^#!\/bin\/sh/);
    expect(text).toContain("SERVER='http://localhost:4000'");
    expect(text).toContain('/agent/throng-agent.mjs" -o');
    const bundle = await fetch(`${api.url}/agent/throng-agent.mjs`);
    expect(bundle.status).toBe(503);
    expect(ErrorBody.parse(await bundle.json()).error.message).toMatch(/npm run build -w @throng\/agent/);
    const agentPackage = await fetch(`${api.url}/agent/throng-agent.tgz`);
    expect(agentPackage.status).toBe(503);
    expect(ErrorBody.parse(await agentPackage.json()).error.message).toMatch(/npm run build -w @throng\/agent/);
    expect(text).toContain('/agent/throng-io-$platform.node"');
    expect(text).toContain('/agent/throng-engine.mjs" -o');
    expect((await fetch(`${api.url}/agent/throng-engine.mjs`)).status).toBe(503);
    const addon = await fetch(`${api.url}/agent/${NATIVE_IO_FILE}`);
    expect(addon.status).toBe(503);
    expect(ErrorBody.parse(await addon.json()).error.message).toMatch(/native I\/O addon is not built/);
  });

  it("serves the built agent bundle and, beside it, its engine bundle and the native I/O addon for this server's platform", async () => {
    const dir = await mkdtemp(join(tmpdir(), "throng-agent-dist-"));
    await writeFile(join(dir, "throng-agent.mjs"), "// the bundle");
    const addonBytes = Buffer.from([0x7f, 0x45, 0x4c, 0x46, 1, 2, 3]);
    await writeFile(join(dir, "throng-io.node"), addonBytes);
    await writeFile(join(dir, "throng-engine.mjs"), "// the engine");
    const built = await startTestApi({ agentBundlePath: join(dir, "throng-agent.mjs") });
    try {
      expect(await (await fetch(`${built.url}/agent/throng-agent.mjs`)).text()).toBe("// the bundle");
      expect(await (await fetch(`${built.url}/agent/throng-engine.mjs`)).text()).toBe("// the engine");
      const addon = await fetch(`${built.url}/agent/${NATIVE_IO_FILE}`);
      expect(addon.status).toBe(200);
      expect(Buffer.from(await addon.arrayBuffer()).equals(addonBytes)).toBe(true);
      // Another platform's addon is not served: a rig of that kind falls back to Node's sockets.
      expect((await fetch(`${built.url}/agent/throng-io-plan9-mips.node`)).status).toBe(404);
    } finally {
      await built.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses to start a run when no agent is online", async () => {
    const user = await api.signUp("Gus");
    const created = PlanView.parse((await user.request("POST", "/api/plans", plan)).json);
    const answer = await user.request("POST", `/api/plans/${created.id}/runs`);
    expect(answer.status).toBe(409);
    expect(ErrorBody.parse(answer.json).error.code).toBe("no_agent_online");
  });
});
