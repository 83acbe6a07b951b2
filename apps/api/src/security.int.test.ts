import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@throng/protocol/errors";
import { AgentCloseCode } from "@throng/protocol/agent";
import { ApiTokenCreated, AuditEntry, InvitationCreated, MemberView, Membership } from "@throng/protocol/orgs";
import { EnrolmentTokenCreated, Me, PlanView } from "@throng/protocol/api";
import { connectTestAgent, enrolTestAgent, helloWith } from "./testing/test-agent";
import { startTestApi, WEB_ORIGIN, type TestApi, type TestUser } from "./testing/test-api";

const plan = {
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients: 5, durationSec: 5 },
};
const logLines: string[] = [];
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ logLines });
});
afterAll(async () => {
  await api?.close();
});

async function invite(owner: TestUser, role: string) {
  return InvitationCreated.parse((await owner.request("POST", "/api/invitations", { role })).json);
}

/** Signs a new user up and brings them into `owner`'s organisation with `role`. */
async function joined(owner: TestUser, role: string, name = "Joiner") {
  const user = await api.signUp(name);
  const invitation = await invite(owner, role);
  expect((await user.request("POST", "/api/invitations/accept", { token: invitation.link })).status).toBe(200);
  return user;
}

async function bearer(token: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

describe("teams: invitations, roles, switching, leaving", () => {
  it("an invitation link adds the user with its role, once", async () => {
    const owner = await api.signUp("Own");
    const preview = await fetch(`${api.url}/api/invitations/preview/${(await invite(owner, "viewer")).token}`);
    expect(await preview.json()).toMatchObject({ orgName: "Own's team", role: "viewer" });
    expect((await fetch(`${api.url}/api/invitations/preview/thr_inv_nope_abcdef`)).status).toBe(404);
    const viewer = await joined(owner, "viewer", "View");
    const me = Me.parse((await viewer.request<Me>("GET", "/api/me")).json);
    expect(me.role).toBe("viewer");
    expect(me.organization.id).toBe(Me.parse((await owner.request<Me>("GET", "/api/me")).json).organization.id);
    const orgs = (await viewer.request<{ orgs: Membership[] }>("GET", "/api/orgs")).json.orgs.map((o: unknown) =>
      Membership.parse(o),
    );
    expect(orgs).toHaveLength(2);
    const invitation = await invite(owner, "member");
    const third = await api.signUp("Third");
    expect((await third.request("POST", "/api/invitations/accept", { token: invitation.token })).status).toBe(200);
    const reused = await (await api.signUp("Late")).request("POST", "/api/invitations/accept", {
      token: invitation.token,
    });
    expect(reused.status).toBe(404);
    expect(ErrorBody.parse(reused.json).error.message).toMatch(/unknown, expired, used or revoked/);
  });

  it("a viewer reads but cannot change; the error names the role", async () => {
    const owner = await api.signUp("Own2");
    const viewer = await joined(owner, "viewer");
    expect((await viewer.request<{ plans: PlanView[] }>("GET", "/api/plans")).status).toBe(200);
    const refused = await viewer.request("POST", "/api/plans", plan);
    expect(refused.status).toBe(403);
    expect(ErrorBody.parse(refused.json).error.message).toMatch(/Your role \(viewer\) may not plan: write/);
  });

  it("admins manage members but not owners; the last owner cannot leave or be demoted", async () => {
    const owner = await api.signUp("Own3");
    const admin = await joined(owner, "admin", "Adm");
    const member = await joined(owner, "member", "Mem");
    const members = (await owner.request<{ members: MemberView[] }>("GET", "/api/members")).json.members.map(
      (m: unknown) => MemberView.parse(m),
    );
    const byRole = (role: string) => members.find((m: MemberView) => m.role === role)!;
    expect((await admin.request("PATCH", `/api/members/${byRole("member").id}`, { role: "viewer" })).status).toBe(204);
    expect((await admin.request("PATCH", `/api/members/${byRole("owner").id}`, { role: "member" })).status).toBe(403);
    expect((await admin.request("PATCH", `/api/members/${byRole("member").id}`, { role: "owner" })).status).toBe(403);
    expect((await owner.request("PATCH", `/api/members/${byRole("owner").id}`, { role: "admin" })).status).toBe(409);
    expect((await owner.request("POST", "/api/members/leave")).status).toBe(409);
    expect((await admin.request("DELETE", `/api/members/${byRole("member").id}`)).status).toBe(204);
    // Removed: the next request already runs in the user's own organisation, not this one.
    const after = Me.parse((await member.request<Me>("GET", "/api/me")).json);
    expect(after.organization.id).not.toBe(Me.parse((await owner.request<Me>("GET", "/api/me")).json).organization.id);
  });

  it("switching organisations changes what every request sees", async () => {
    const owner = await api.signUp("Own4");
    await owner.request("POST", "/api/plans", plan);
    const user = await joined(owner, "member", "Sw");
    expect((await user.request<{ plans: PlanView[] }>("GET", "/api/plans")).json.plans).toHaveLength(1);
    const own = (await user.request<{ orgs: Membership[] }>("GET", "/api/orgs")).json.orgs.find(
      (o: Membership) => !o.active,
    );
    expect((await user.request("POST", "/api/orgs/switch", { orgId: own?.orgId })).status).toBe(204);
    expect((await user.request<{ plans: PlanView[] }>("GET", "/api/plans")).json.plans).toHaveLength(0);
    expect((await user.request("POST", "/api/orgs/switch", { orgId: "not-mine" })).status).toBe(404);
  });
});

describe("sessions", () => {
  it("sign-out everywhere ends every session of the user, and signing in starts a new one", async () => {
    const user = await api.signUp("Sess");
    const first = await user.cookie();
    const second = await user.request("POST", "/api/auth/sign-in/email", {
      email: user.email,
      password: "correct-horse-battery",
    });
    expect(second.status).toBe(200);
    const other = await user.cookie();
    expect(other).not.toBe(first);
    const meWith = (cookie: string) => fetch(`${api.url}/api/me`, { headers: { cookie } }).then((r) => r.status);
    expect(await meWith(first)).toBe(200);
    expect((await user.request("POST", "/api/auth/revoke-sessions", {})).status).toBe(200);
    expect(await meWith(first)).toBe(401);
    expect(await meWith(other)).toBe(401);
  });

  it("sets the session cookie httpOnly and SameSite", async () => {
    const response = await fetch(`${api.url}/api/auth/sign-up/email`, {
      method: "POST",
      headers: { origin: WEB_ORIGIN, "content-type": "application/json" },
      body: JSON.stringify({
        name: "Ck",
        email: `ck-${crypto.randomUUID().slice(0, 6)}@example.com`,
        password: "correct-horse-battery",
      }),
    });
    const cookie = response.headers.getSetCookie().find((c) => c.includes("session_token"))!;
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });
});

describe("API tokens", () => {
  it("are shown once, scoped, revocable, and never more than their creator", async () => {
    const owner = await api.signUp("Tok");
    const created = ApiTokenCreated.parse(
      (await owner.request("POST", "/api/tokens", { name: "ci", scope: "read" })).json,
    );
    expect(created.token).toMatch(/^thr_api_[0-9A-Za-z]{32}_[0-9A-Za-z]{6}$/);
    expect(JSON.stringify((await owner.request("GET", "/api/tokens")).json)).not.toContain(created.token);
    expect((await bearer(created.token, "GET", "/api/plans")).status).toBe(200);
    expect((await bearer(created.token, "POST", "/api/plans", plan)).status).toBe(403);
    const run = ApiTokenCreated.parse(
      (await owner.request("POST", "/api/tokens", { name: "ci-run", scope: "run" })).json,
    );
    expect((await bearer(run.token, "POST", "/api/plans", plan)).status).toBe(201);
    expect((await owner.request("DELETE", `/api/tokens/${created.id}`)).status).toBe(204);
    expect((await bearer(created.token, "GET", "/api/plans")).status).toBe(401);
    expect((await bearer("thr_api_forged_abcdef", "GET", "/api/plans")).status).toBe(401);
    const viewer = await joined(owner, "viewer");
    expect((await viewer.request("POST", "/api/tokens", { name: "x", scope: "read" })).status).toBe(403);
  });

  it("an expired token is refused", async () => {
    const owner = await api.signUp("Exp");
    const created = ApiTokenCreated.parse((await owner.request("POST", "/api/tokens", { name: "old" })).json);
    await api.db
      .updateTable("api_tokens")
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where("id", "=", created.id)
      .execute();
    expect((await bearer(created.token, "GET", "/api/plans")).status).toBe(401);
  });
});

describe("hygiene", () => {
  it("refuses a cookie-authenticated change from another origin (CSRF)", async () => {
    const user = await api.signUp("Csrf");
    const cookie = await user.cookie();
    const cross = await fetch(`${api.url}/api/plans`, {
      method: "POST",
      headers: { cookie, origin: "http://evil.example", "content-type": "application/json" },
      body: JSON.stringify(plan),
    });
    expect(cross.status).toBe(403);
    expect(ErrorBody.parse(await cross.json()).error.message).toMatch(/Cross-site request refused/);
    const noOrigin = await fetch(`${api.url}/api/plans`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify(plan),
    });
    expect(noOrigin.status).toBe(403);
    expect(
      (
        await fetch(`${api.url}/api/plans`, {
          method: "POST",
          headers: { cookie, origin: WEB_ORIGIN, "content-type": "application/json" },
          body: JSON.stringify(plan),
        })
      ).status,
    ).toBe(201);
  });

  it("sends security headers", async () => {
    const response = await fetch(`${api.url}/health`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(response.headers.get("referrer-policy")).toBe("no-referrer");
  });

  it("keeps secrets out of answers, error messages and logs", async () => {
    const user = await api.signUp("Sec");
    const answer = await user.request<{ token?: string }>("POST", "/api/auth/sign-in/email", {
      email: user.email,
      password: "correct-horse-battery",
    });
    expect(answer.status).toBe(200);
    expect(answer.json.token).toBeUndefined();
    const enrolment = EnrolmentTokenCreated.parse((await user.request("POST", "/api/enrolment-tokens")).json);
    const apiToken = ApiTokenCreated.parse((await user.request("POST", "/api/tokens", { name: "t" })).json);
    const agent = await connectTestAgent(api.gatewayUrl);
    agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: enrolment.token }) });
    const ready = await agent.next("ready");
    await agent.close();
    const bad = await bearer(`${apiToken.token}x`, "GET", "/api/plans");
    expect(JSON.stringify(bad.json)).not.toContain(apiToken.token);
    const logs = logLines.join("\n");
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of ["correct-horse-battery", enrolment.token, apiToken.token, ready.credential!.secret]) {
      expect(logs).not.toContain(secret);
    }
    const audit = (await user.request<{ entries: AuditEntry[] }>("GET", "/api/audit")).json.entries.map((e: unknown) =>
      AuditEntry.parse(e),
    );
    expect(JSON.stringify(audit)).not.toContain(apiToken.token);
  });

  it("keeps an audit log of sensitive actions, for admins only", async () => {
    const owner = await api.signUp("Aud");
    await owner.request("POST", "/api/enrolment-tokens");
    const token = ApiTokenCreated.parse((await owner.request("POST", "/api/tokens", { name: "ci" })).json);
    await owner.request("DELETE", `/api/tokens/${token.id}`);
    const member = await joined(owner, "member");
    const actions = (await owner.request<{ entries: AuditEntry[] }>("GET", "/api/audit")).json.entries.map(
      (e: AuditEntry) => e.action,
    );
    expect(actions).toEqual(
      expect.arrayContaining([
        "enrolment-token.created",
        "api-token.created",
        "api-token.revoked",
        "invitation.created",
        "member.joined",
      ]),
    );
    expect((await member.request<{ entries: AuditEntry[] }>("GET", "/api/audit")).status).toBe(403);
  });

  it("records in the audit log who added and removed a notification channel, set and stopped a schedule, stored a script and aborted a run", async () => {
    const owner = await api.signUp("Rec");
    const { agent } = await enrolTestAgent(api.gatewayUrl, owner);
    const channel = (
      await owner.request("POST", "/api/notification-channels", {
        kind: "webhook",
        name: "ops",
        url: "https://hooks.example.com/secret-path",
        events: ["failed"],
      })
    ).json as { id: string };
    expect((await owner.request("DELETE", `/api/notification-channels/${channel.id}`)).status).toBe(204);
    const saved = PlanView.parse((await owner.request("POST", "/api/plans", { ...plan, name: "Nightly" })).json);
    expect(
      (await owner.request("PUT", `/api/plans/${saved.id}/schedule`, { cron: "0 3 * * *", timezone: "Europe/Berlin" }))
        .status,
    ).toBe(200);
    expect((await owner.request("DELETE", `/api/plans/${saved.id}/schedule`)).status).toBe(204);
    const script = (
      await owner.request("POST", "/api/scripts", {
        name: "bots.mjs",
        source: "export default async function client() {}\n",
      })
    ).json as { sha256: string };
    const run = (await owner.request("POST", `/api/plans/${saved.id}/runs`)).json as { id: string };
    expect((await owner.request("POST", `/api/runs/${run.id}/abort`)).status).toBe(200);
    await agent.close();

    const entries = (
      (await owner.request<{ entries: AuditEntry[] }>("GET", "/api/audit")).json.entries as unknown[]
    ).map((e) => AuditEntry.parse(e));
    const entry = (action: string) => entries.find((candidate) => candidate.action === action);
    expect(entry("notification-channel.created")).toMatchObject({
      actor: owner.email,
      target: channel.id,
      details: { name: "ops", kind: "webhook", host: "hooks.example.com" },
    });
    expect(entry("notification-channel.removed")).toMatchObject({ target: channel.id, details: { name: "ops" } });
    expect(entry("schedule.set")).toMatchObject({
      target: saved.id,
      details: { name: "Nightly", cron: "0 3 * * *", timezone: "Europe/Berlin" },
    });
    expect(entry("schedule.removed")).toMatchObject({ target: saved.id, details: { name: "Nightly" } });
    expect(entry("script.stored")).toMatchObject({ target: script.sha256, details: { name: "bots.mjs" } });
    expect(entry("run.aborted")).toMatchObject({ actor: owner.email, target: run.id, details: { name: "Nightly" } });
    // A Slack or webhook URL's path is its secret: only its host is kept.
    expect(JSON.stringify(entries)).not.toContain("secret-path");
  });

  it("enforces the org's target allow-list and caps before a run starts", async () => {
    const owner = await api.signUp("Cap");
    const { agent } = await enrolTestAgent(api.gatewayUrl, owner);
    const saved = await owner.request("PUT", "/api/org/settings", {
      targetAllowList: ["127.0.0.1:9999"],
      maxClients: 3,
      maxDurationSec: 60,
    });
    expect(saved.status).toBe(200);
    // The plan saves (an admin may be about to change the list), and says at once what would stop it from starting.
    const created = PlanView.parse((await owner.request("POST", "/api/plans", plan)).json);
    expect(created.warnings?.map((f) => f.path)).toEqual(["target.url", "load.clients"]);
    expect(created.warnings?.[0]?.message).toMatch(
      /not on this organisation's target allow-list .*an admin can add it under Settings/,
    );
    expect(PlanView.parse((await owner.request("GET", `/api/plans/${created.id}`)).json).warnings).toEqual(
      created.warnings,
    );
    const refused = await owner.request("POST", `/api/plans/${created.id}/runs`);
    expect(refused.status).toBe(403);
    expect(ErrorBody.parse(refused.json).error.fields?.map((f) => f.path)).toEqual(["target.url", "load.clients"]);
    // A schedule whose every firing would be refused is not turned on.
    const schedule = await owner.request("PUT", `/api/plans/${created.id}/schedule`, {
      cron: "0 3 * * *",
      timezone: "UTC",
    });
    expect(schedule.status).toBe(403);
    expect(ErrorBody.parse(schedule.json).error.fields?.map((f) => f.path)).toEqual(["target.url", "load.clients"]);
    expect((await owner.request("GET", `/api/plans/${created.id}/schedule`)).json).toEqual({ schedule: null });
    // A session's http step (matchmaking) is held to the list like the target: allowed target, refused step.
    await owner.request("PUT", "/api/org/settings", {
      targetAllowList: ["127.0.0.1:7070"],
      maxClients: 10,
      maxDurationSec: 60,
    });
    const withHttpStep = {
      ...plan,
      scenario: { ...plan.scenario, session: [{ kind: "http", url: "http://10.0.0.9:8080/match?c={{client}}" }] },
    };
    const stepPlan = PlanView.parse((await owner.request("POST", "/api/plans", withHttpStep)).json);
    const stepRefused = await owner.request("POST", `/api/plans/${stepPlan.id}/runs`);
    expect(stepRefused.status).toBe(403);
    expect(ErrorBody.parse(stepRefused.json).error.fields).toEqual([
      {
        path: "scenario.session.0.url",
        message: expect.stringContaining("10.0.0.9:8080 is not on this organisation's target allow-list"),
      },
    ]);
    expect((await owner.request("PUT", "/api/org/settings", { targetAllowList: ["not a host!"] })).status).toBe(400);
    await agent.close();
  });
});

describe("rate limits (Redis, so they hold across API instances)", () => {
  it("answer 429 with Retry-After on sign-in, and close enrolment with 4029", async () => {
    // Hour-long windows: a fixed window that rolled over mid-test (at a minute boundary) would reset the counts.
    const limited = await startTestApi({
      rateLimits: {
        signIn: { limit: 2, windowSec: 3600 },
        signUp: { limit: 5, windowSec: 3600 },
        enrolment: { limit: 1, windowSec: 3600 },
      },
    });
    try {
      const user = await limited.signUp("Rl");
      const attempt = () =>
        user.request("POST", "/api/auth/sign-in/email", { email: user.email, password: "wrong-password-1" });
      expect((await attempt()).status).toBe(401);
      expect((await attempt()).status).toBe(401);
      const third = await fetch(`${limited.url}/api/auth/sign-in/email`, {
        method: "POST",
        headers: { origin: WEB_ORIGIN, "content-type": "application/json" },
        body: JSON.stringify({ email: user.email, password: "x" }),
      });
      expect(third.status).toBe(429);
      expect(Number(third.headers.get("retry-after"))).toBeGreaterThan(0);
      for (const expected of [AgentCloseCode.unauthenticated, AgentCloseCode.rateLimited]) {
        const agent = await connectTestAgent(limited.gatewayUrl);
        agent.send({ type: "hello", payload: helloWith({ kind: "enrolment", token: "thr_enr_nope_abcdef" }) });
        expect((await agent.closed).code).toBe(expected);
      }
    } finally {
      await limited.close();
    }
  });
});

describe("who may call a route answers before its body is checked (the body is parsed by the route's schema)", () => {
  it("a bad body without credentials is a 401 and from a viewer a 403, not a 400 about a body it may not send", async () => {
    const owner = await api.signUp("Bodyorder");
    const viewer = await joined(owner, "viewer", "Bodyviewer");
    expect((await bearer("thr_api_forged_abcdef", "POST", "/api/plans", { name: 5 })).status).toBe(401);
    expect((await viewer.request("POST", "/api/plans", { name: 5 })).status).toBe(403);
    expect((await viewer.request("PUT", "/api/org/settings", { maxClients: -1 })).status).toBe(403);
    // Allowed to call it, the same body is the route's 400, in the words core used when it parsed bodies itself.
    const refused = await owner.request("POST", "/api/plans", { name: 5 });
    expect(refused.status).toBe(400);
    expect(ErrorBody.parse(refused.json).error.message).toMatch(/^Invalid plan \(/);
  });
});
