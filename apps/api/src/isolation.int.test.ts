import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiTokenCreated, InvitationCreated, MemberView } from "@throng/protocol/orgs";
import { type AgentView, type Me, PlanView } from "@throng/protocol/api";
import { RunView } from "@throng/protocol/run";
import { ShareLinkCreated } from "@throng/protocol/report";
import { ScriptSummary } from "@throng/protocol/script-bundle";
import { NotificationChannelView } from "@throng/protocol/notifications";
import { can } from "@throng/core/orgs/permissions";
import type { Action } from "@throng/protocol/orgs";
import { enrolTestAgent, type TestAgent } from "./testing/test-agent";
import { startTestApi, WEB_ORIGIN, type TestApi, type TestUser } from "./testing/test-api";
import { NATIVE_IO_FILE } from "./routes/agent-install.routes";

/**
 * Walks every route in the OpenAPI document and tries it as everyone who must be refused. A route missing
 * from `routes` below fails the suite, so nobody adds an endpoint without deciding who may call it.
 */
interface Fixture {
  planId: string;
  runId: string;
  agentId: string;
  memberId: string;
  invitationId: string;
  tokenId: string;
  shareLinkId: string;
  scriptSha256: string;
  channelId: string;
  secretName: string;
  secretValue: string;
}
type Kind = "collection" | "own" | "by-id";
interface RouteSpec {
  kind: Kind;
  id?: (f: Fixture) => string;
  body?: unknown;
}
const plan = {
  name: "secret plan",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients: 2, durationSec: 600 },
};
/** Routes without a body that name one of the victim's rows, by its id in the fixture's `field`. */
const byId = (field: keyof Fixture, keys: string[]): Record<string, RouteSpec> =>
  Object.fromEntries(keys.map((key) => [key, { kind: "by-id", id: (f: Fixture) => f[field] }]));
// kind: "collection" lists the caller's own org (must not show the victim's rows); "by-id" names a victim's row
// (must be 404 for another org); "own" acts on the caller's own account or org (safe for anyone to call).
const routes: Record<string, RouteSpec> = {
  "GET /api/me": { kind: "collection" },
  "GET /api/orgs": { kind: "collection" },
  "POST /api/orgs/switch": { kind: "own", body: { orgId: "x" } },
  "GET /api/members": { kind: "collection" },
  "PATCH /api/members/:id": { kind: "by-id", id: (f) => f.memberId, body: { role: "viewer" } },
  "DELETE /api/members/:id": { kind: "by-id", id: (f) => f.memberId },
  "POST /api/members/leave": { kind: "own" },
  "POST /api/invitations": { kind: "own", body: { role: "member" } },
  "GET /api/invitations": { kind: "collection" },
  "DELETE /api/invitations/:id": { kind: "by-id", id: (f) => f.invitationId },
  "POST /api/invitations/accept": { kind: "own", body: { token: "thr_inv_nope_abcdef" } },
  "GET /api/tokens": { kind: "collection" },
  "POST /api/tokens": { kind: "own", body: { name: "x", scope: "read" } },
  "DELETE /api/tokens/:id": { kind: "by-id", id: (f) => f.tokenId },
  "GET /api/audit": { kind: "collection" },
  "GET /api/org/settings": { kind: "collection" },
  "PUT /api/org/settings": { kind: "own", body: {} },
  "POST /api/enrolment-tokens": { kind: "own", body: {} },
  "GET /api/agents": { kind: "collection" },
  "PUT /api/agents/:id/labels": { kind: "by-id", id: (f) => f.agentId, body: { labels: { a: "b" } } },
  "POST /api/agents/:id/revoke": { kind: "by-id", id: (f) => f.agentId },
  "GET /api/plans": { kind: "collection" },
  "POST /api/plans": { kind: "own", body: plan },
  "PUT /api/plans/by-name": { kind: "own", body: { name: "victim plan", spec: plan } },
  "PUT /api/plans/:id": { kind: "by-id", id: (f) => f.planId, body: { version: 1, spec: plan } },
  "PUT /api/plans/:id/baseline": {
    kind: "by-id",
    id: (f) => f.planId,
    body: { runId: "00000000-0000-4000-8000-000000000000" },
  },
  ...byId("planId", [
    "GET /api/plans/:id",
    "GET /api/plans/:id/versions",
    "POST /api/plans/:id/archive",
    "POST /api/plans/:id/restore",
    "DELETE /api/plans/:id",
    "DELETE /api/plans/:id/baseline",
    "POST /api/plans/:id/runs",
  ]),
  "GET /api/scripts": { kind: "collection" },
  "POST /api/scripts": { kind: "own", body: { name: "x.mjs", source: "export default async () => {};" } },
  "GET /api/scripts/:sha256": { kind: "by-id", id: (f) => f.scriptSha256 },
  // Another org's agent is refused (404) in tests/session-trial.int.test.ts; here the caller's own org has none online.
  "POST /api/plans/try": { kind: "own", body: { spec: plan } },
  "GET /api/runs": { kind: "collection" },
  "PATCH /api/runs/:id": {
    kind: "by-id",
    id: (f) => f.runId,
    body: { note: "the intruder's note", tags: ["intruder"] },
  },
  "POST /api/runs/:id/share-links": { kind: "by-id", id: (f) => f.runId, body: {} },
  "POST /api/runs/:id/estimates": { kind: "by-id", id: (f) => f.runId, body: { targetName: "t", build: "1" } },
  ...byId("runId", [
    "GET /api/runs/:id",
    "GET /api/runs/:id/series",
    "GET /api/runs/:id/summary",
    "GET /api/runs/:id/server",
    "GET /api/runs/:id/errors",
    "GET /api/runs/:id/rooms",
    "GET /api/runs/:id/distribution",
    "POST /api/runs/:id/abort",
    "GET /api/runs/:id/live",
    "GET /api/runs/:id/report",
    "GET /api/runs/:id/series.csv",
    "GET /api/runs/:id/errors.csv",
    "GET /api/runs/:id/report.pdf",
    "GET /api/runs/compare",
    "GET /api/runs/:id/share-links",
  ]),
  "DELETE /api/share-links/:id": { kind: "by-id", id: (f) => f.shareLinkId },
  "PUT /api/plans/:id/schedule": { kind: "by-id", id: (f) => f.planId, body: { cron: "0 3 * * *" } },
  ...byId("planId", [
    "GET /api/plans/:id/schedule",
    "DELETE /api/plans/:id/schedule",
    "POST /api/plans/:id/schedule/pause",
    "POST /api/plans/:id/schedule/resume",
  ]),
  "GET /api/schedules": { kind: "collection" },
  "GET /api/notification-channels": { kind: "collection" },
  "POST /api/notification-channels": {
    kind: "own",
    body: { kind: "slack", name: "x", url: "http://127.0.0.1:9/x", events: ["finished"] },
  },
  "DELETE /api/notification-channels/:id": { kind: "by-id", id: (f) => f.channelId },
  "POST /api/notification-channels/:id/test": { kind: "by-id", id: (f) => f.channelId },
  "GET /api/notification-deliveries": { kind: "collection" },
  "GET /api/metrics-export": { kind: "collection" },
  "PUT /api/metrics-export/:sink": { kind: "own", body: { url: "http://127.0.0.1:9/api/v1/write" } },
  "DELETE /api/metrics-export/:sink": { kind: "own" },
  "POST /api/metrics-export/:sink/test": { kind: "own" },
  "GET /api/secrets": { kind: "collection" },
  // The intruder's PUT makes a secret of its own org (of the same name); the victim's keeps its value (checked below).
  "PUT /api/secrets/:name": { kind: "own", id: (f) => f.secretName, body: { value: "the intruder's value" } },
  "DELETE /api/secrets/:name": { kind: "by-id", id: (f) => f.secretName },
  "GET /api/targets": { kind: "collection" },
  "GET /api/targets/:name/estimates": { kind: "collection" },
  "GET /api/sso": { kind: "collection" },
  "PUT /api/sso/requirement": { kind: "own", body: { requireSso: false } },
  "POST /api/sso/domains": { kind: "own", body: { domain: "example.org" } },
  "POST /api/sso/domains/:domain/verify": { kind: "own" },
  "DELETE /api/sso/domains/:domain": { kind: "own" },
  "POST /api/sso/providers": {
    kind: "own",
    body: {
      protocol: "oidc",
      name: "x",
      domains: ["example.org"],
      issuer: "http://127.0.0.1:9",
      clientId: "x",
      clientSecret: "x",
    },
  },
  "PUT /api/sso/providers/:id": {
    kind: "own",
    id: () => "sso-00000000",
    body: { protocol: "oidc", name: "x", domains: ["example.org"], issuer: "http://127.0.0.1:9", clientId: "x" },
  },
  "DELETE /api/sso/providers/:id": { kind: "own", id: () => "sso-00000000" },
  "PUT /api/sso/providers/:id/enabled": { kind: "own", id: () => "sso-00000000", body: { enabled: false } },
};
const PUBLIC = [
  "GET /api/invitations/preview/:token",
  "GET /api/public/reports/:token",
  "GET /api/public/reports/:token/report.pdf",
  "GET /api/public/reports/:token/summary",
  "GET /api/public/reports/:token/distribution",
  "GET /health",
  "GET /api/auth/*",
  "POST /api/auth/*",
  "GET /agent/throng-agent.mjs",
  "GET /agent/throng-agent.tgz",
  "GET /agent/throng-engine.mjs",
  `GET /agent/${NATIVE_IO_FILE}`,
  "GET /agent/install.sh",
  "GET /api/openapi.json",
  "GET /metrics",
  "POST /api/sso/sign-in",
];

interface Operation {
  method: string;
  path: string;
  access: string;
  permission?: Action;
}
let api: TestApi;
let victim: TestUser;
let viewer: TestUser;
let intruder: TestUser;
let fixture: Fixture;
let operations: Operation[];
let revokedToken: string;
let expiredToken: string;
let intruderAgentSecret: string;
const agents: TestAgent[] = [];

async function enrol(user: TestUser) {
  const enrolled = await enrolTestAgent(api.gatewayUrl, user);
  agents.push(enrolled.agent);
  return enrolled;
}

beforeAll(async () => {
  api = await startTestApi();
  victim = await api.signUp("Victim");
  intruder = await api.signUp("Intruder");
  const { ready } = await enrol(victim);
  intruderAgentSecret = (await enrol(intruder)).ready.credential!.secret;
  const planId = PlanView.parse((await victim.request("POST", "/api/plans", plan)).json).id;
  const runId = RunView.parse((await victim.request("POST", `/api/plans/${planId}/runs`)).json).id;
  viewer = await api.signUp("Viewer");
  await viewer.request("POST", "/api/invitations/accept", {
    token: InvitationCreated.parse((await victim.request("POST", "/api/invitations", { role: "viewer" })).json).token,
  });
  const invitationId = InvitationCreated.parse(
    (await victim.request("POST", "/api/invitations", { role: "member" })).json,
  ).id;
  const members = (await victim.request<{ members: MemberView[] }>("GET", "/api/members")).json.members.map(
    (m: unknown) => MemberView.parse(m),
  );
  const tokenId = ApiTokenCreated.parse((await victim.request("POST", "/api/tokens", { name: "kept" })).json).id;
  const revoked = ApiTokenCreated.parse(
    (await victim.request("POST", "/api/tokens", { name: "revoked", scope: "admin" })).json,
  );
  await victim.request("DELETE", `/api/tokens/${revoked.id}`);
  revokedToken = revoked.token;
  const expired = ApiTokenCreated.parse(
    (await victim.request("POST", "/api/tokens", { name: "expired", scope: "admin" })).json,
  );
  await api.db
    .updateTable("api_tokens")
    .set({ expires_at: new Date(Date.now() - 1000) })
    .where("id", "=", expired.id)
    .execute();
  expiredToken = expired.token;
  const shareLinkId = ShareLinkCreated.parse(
    (await victim.request("POST", `/api/runs/${runId}/share-links`, {})).json,
  ).id;
  const scriptSha256 = ScriptSummary.parse(
    (
      await victim.request("POST", "/api/scripts", {
        name: "secret.mjs",
        source: "export default async () => { /* victim */ };",
      })
    ).json,
  ).sha256;
  const channelId = NotificationChannelView.parse(
    (
      await victim.request("POST", "/api/notification-channels", {
        kind: "webhook",
        name: "victim hook",
        url: "http://127.0.0.1:9/victim",
        events: ["failed"],
      })
    ).json,
  ).id;
  const secretName = "VICTIM_DB_PASSWORD";
  const secretValue = "victim-secret-value-8d1f";
  await victim.request("PUT", `/api/secrets/${secretName}`, { value: secretValue });
  fixture = {
    planId,
    runId,
    agentId: ready.agentId,
    memberId: members.find((m: MemberView) => m.role === "viewer")!.id,
    invitationId,
    tokenId,
    shareLinkId,
    scriptSha256,
    channelId,
    secretName,
    secretValue,
  };
  const doc = (await (await fetch(`${api.url}/api/openapi.json`)).json()) as { paths: unknown };
  operations = Object.entries(
    doc.paths as Record<string, Record<string, { "x-access": string; "x-permission"?: Action }>>,
  ).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path: path.replace(/\{path\}$/, "*").replace(/\{(\w+)\}/g, ":$1"),
      access: op["x-access"],
      permission: op["x-permission"],
    })),
  );
});
afterAll(async () => {
  for (const agent of agents) await agent.close();
  await api?.close();
});

const key = (op: Operation) => `${op.method} ${op.path}`;
const urlOf = (op: Operation) => {
  const spec = routes[key(op)];
  return op.path
    .replace(/:(id|sha256)\b/, spec?.id ? spec.id(fixture) : "00000000-0000-4000-8000-000000000000")
    .replace(":name", spec?.id ? spec.id(fixture) : "lobby")
    .replace(":domain", "example.org")
    .replace(":sink", "prometheus")
    .replace("/api/runs/compare", `/api/runs/compare?ids=${fixture.runId},${fixture.runId}`)
    .replace(/\/distribution$/, "/distribution?metric=rtt")
    .replace(/\/summary$/, "/summary?from=0&to=5");
};

async function call(op: Operation, headers: Record<string, string>) {
  const spec = routes[key(op)];
  const controller = new AbortController();
  const response = await fetch(`${api.url}${urlOf(op)}`, {
    method: op.method,
    signal: controller.signal,
    headers: {
      origin: WEB_ORIGIN,
      ...headers,
      ...(spec?.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(spec?.body !== undefined ? { body: JSON.stringify(spec.body) } : {}),
  });
  const text = response.headers.get("content-type")?.includes("event-stream") ? "" : await response.text();
  controller.abort();
  return { status: response.status, text };
}

describe("isolation: every route in the OpenAPI document, tried by everyone who must be refused", () => {
  it("documents every route, and this suite covers every documented one", () => {
    expect(api.routeRegistry.undocumented.filter((r: string) => !r.startsWith("HEAD "))).toEqual([]);
    const covered = new Set([...Object.keys(routes), ...PUBLIC]);
    expect(operations.map(key).filter((k) => !covered.has(k))).toEqual([]);
    expect(Object.keys(routes).filter((k) => !operations.some((op) => key(op) === k))).toEqual([]);
  });

  it("refuses every non-public route without credentials, or with a revoked, expired or forged token, or an agent's secret", async () => {
    for (const op of operations.filter((o) => o.access !== "public")) {
      for (const headers of [
        {} as Record<string, string>,
        { authorization: `Bearer ${revokedToken}` },
        { authorization: `Bearer ${expiredToken}` },
        { authorization: `Bearer ${intruderAgentSecret}` },
      ]) {
        expect({ route: key(op), status: (await call(op, headers)).status }).toEqual({ route: key(op), status: 401 });
      }
    }
  });

  it("never shows or touches another organisation's rows", async () => {
    const cookie = await intruder.cookie();
    const secrets = Object.values(fixture);
    for (const op of operations.filter((o) => o.access !== "public")) {
      const { kind } = routes[key(op)]!;
      if (kind === "own") continue;
      const { status, text } = await call(op, { cookie });
      if (kind === "by-id") expect({ route: key(op), status }).toEqual({ route: key(op), status: 404 });
      // The id the intruder itself sent may be echoed in the 404's message; any other victim id is a leak.
      const echoed = routes[key(op)]!.id?.(fixture);
      const leaked = secrets.filter((secret) => secret !== echoed && text.includes(secret));
      expect({ route: key(op), leaked }).toEqual({ route: key(op), leaked: [] });
    }
  });

  it("refuses a viewer every change the permission matrix does not give it", async () => {
    const cookie = await viewer.cookie();
    for (const op of operations.filter((o) => o.access === "user" && o.permission && !can("viewer", o.permission))) {
      expect({ route: key(op), status: (await call(op, { cookie })).status }).toEqual({ route: key(op), status: 403 });
    }
  });

  it("left the victim's data as it was", async () => {
    expect((await victim.request("GET", `/api/plans/${fixture.planId}`)).status).toBe(200);
    expect(RunView.parse((await victim.request("GET", `/api/runs/${fixture.runId}`)).json).status).not.toBe("aborted");
    expect(
      (await victim.request<{ agents: AgentView[] }>("GET", "/api/agents")).json.agents.map(
        (a: { id: string }) => a.id,
      ),
    ).toContain(fixture.agentId);
    expect((await victim.request<{ members: MemberView[] }>("GET", "/api/members")).json.members).toHaveLength(2);
    const victimOrg = (await victim.request<Me>("GET", "/api/me")).json.organization.id as string;
    const secretPlan = {
      ...plan,
      target: { ...plan.target, headers: { Authorization: `Bearer {{secrets.${fixture.secretName}}}` } },
    };
    expect((await api.deps.secrets.valuesFor(victimOrg, secretPlan as never)).values).toEqual({
      [fixture.secretName]: fixture.secretValue,
    });
  });
});
