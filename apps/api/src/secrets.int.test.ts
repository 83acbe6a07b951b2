import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { ensureChromium } from "../../../infra/local/chromium";
import { PlanView } from "@throng/protocol/api";
import { ErrorBody } from "@throng/protocol/errors";
import { Channel } from "@throng/protocol/jobs";
import { AuditEntry, InvitationCreated } from "@throng/protocol/orgs";
import { SECRET_MASK } from "@throng/protocol/plan-secrets";
import { RunReport, RunView } from "@throng/protocol/run";
import { ShareLinkCreated } from "@throng/protocol/report";
import { SecretList, SecretView } from "@throng/protocol/secrets";
import { TrialView } from "@throng/protocol/session-trial";
import { encodeValues } from "@throng/core/metrics/histogram";
import { enrolTestAgent, type TestAgent } from "./testing/test-agent";
import { ensurePdfText, pdfText } from "./testing/pdf-text";
import { startTestApi, type TestApi, type TestUser } from "./testing/test-api";
import { heldSnapshot } from "./testing/snapshots";
import { playShardToTheEnd } from "./testing/played-shard";

// Organisation secrets (issue 27 §4): stored sealed, never answered back, refused when a plan names one the org does
// not have, handed to an agent only inside the shard that uses them, and masked with the rest of a plan's
// secret-bearing fields in the documents that leave the organisation.

const logLines: string[] = [];
let api: TestApi;
let owner: TestUser;
let intruder: TestUser;
let agent: TestAgent;
let agentId: string;
let orgId: string;

const VALUES = { REDIS_PASSWORD: "redis-pw-7f3a91", API_TOKEN: "tok-2b8c44e0", UNUSED: "unused-value-5d1e" };

/** A plan naming REDIS_PASSWORD in a session step and API_TOKEN in a header, with literal passwords beside them. */
const planUsingSecrets = (name: string, extra: { session?: unknown[] } = {}) => ({
  name,
  target: {
    protocol: "websocket",
    url: "ws://127.0.0.1:7070/ws?key=literal-query-key",
    headers: { Authorization: "Bearer {{secrets.API_TOKEN}}", "X-Legacy": "literal-header-pw" },
  },
  scenario: {
    kind: "ping-pong",
    intervalMs: 1000,
    messageBytes: 64,
    session: extra.session ?? [
      { kind: "send", message: { body: "AUTH {{secrets.REDIS_PASSWORD}}" } },
      { kind: "send", message: { body: "AUTH literal-session-pw" } },
    ],
  },
  load: { clients: 2, durationSec: 2 },
});

async function putSecret(user: TestUser, name: string, value: string) {
  return user.request("PUT", `/api/secrets/${name}`, { value });
}

async function savePlan(user: TestUser, spec: unknown): Promise<string> {
  const saved = await user.request("POST", "/api/plans", spec);
  if (saved.status !== 201) throw new Error(`plan not saved: ${JSON.stringify(saved.json)}`);
  return PlanView.parse(saved.json).id;
}

beforeAll(async () => {
  await ensurePdfText();
  api = await startTestApi({
    logLines,
    orchestration: { startDelayMs: 50, finishGraceMs: 60_000, agentLostGraceMs: 60_000 },
    pdf: { chromiumPath: await ensureChromium() },
  });
  owner = await api.signUp("Keeper");
  intruder = await api.signUp("Prowler");
  const enrolled = await enrolTestAgent(api.gatewayUrl, owner);
  agent = enrolled.agent;
  agentId = enrolled.ready.agentId;
  orgId = enrolled.ready.orgId;
  for (const [name, value] of Object.entries(VALUES)) expect((await putSecret(owner, name, value)).status).toBe(201);
});
afterAll(async () => {
  await agent?.close();
  await api?.close();
});

describe("organisation secrets: the routes", () => {
  it("creates (201) and replaces (200) a secret, lists names with who and when, never answers a value, and deletes (204, then 404)", async () => {
    const created = await putSecret(owner, "SHORT_LIVED", "first-value-91c2");
    expect(created.status).toBe(201);
    expect(SecretView.strict().parse(created.json)).toMatchObject({
      name: "SHORT_LIVED",
      createdBy: owner.email,
      updatedBy: owner.email,
    });
    const replaced = await putSecret(owner, "SHORT_LIVED", "second-value-4e7a");
    expect(replaced.status).toBe(200);
    const listed = await owner.request("GET", "/api/secrets");
    expect(SecretList.parse(listed.json).secrets.map((s) => s.name)).toEqual([
      "API_TOKEN",
      "REDIS_PASSWORD",
      "SHORT_LIVED",
      "UNUSED",
    ]);
    for (const answer of [created, replaced, listed])
      expect(JSON.stringify(answer.json)).not.toMatch(/first-value|second-value|redis-pw|tok-2b8c|unused-value/);
    expect((await owner.request("DELETE", "/api/secrets/SHORT_LIVED")).status).toBe(204);
    expect((await owner.request("DELETE", "/api/secrets/SHORT_LIVED")).status).toBe(404);
  });

  it("refuses a bad name or an empty value naming the field, and a member (admins and owners only)", async () => {
    const badName = await putSecret(owner, "9lives", "x");
    expect(badName.status).toBe(400);
    expect(ErrorBody.parse(badName.json).error.fields?.[0]?.path).toBe("name");
    expect(ErrorBody.parse((await putSecret(owner, "EMPTY", "")).json).error.fields).toEqual([
      { path: "value", message: "give the secret's value" },
    ]);
    const member = await api.signUp("Member");
    await member.request("POST", "/api/invitations/accept", {
      token: InvitationCreated.parse((await owner.request("POST", "/api/invitations", { role: "member" })).json).token,
    });
    expect((await member.request("GET", "/api/secrets")).status).toBe(403);
    expect((await putSecret(member, "REDIS_PASSWORD", "overwritten")).status).toBe(403);
    expect((await member.request("DELETE", "/api/secrets/REDIS_PASSWORD")).status).toBe(403);
  });

  it("stores the value sealed: the database row does not hold it in clear", async () => {
    const rows = await api.db.selectFrom("org_secrets").selectAll().where("org_id", "=", orgId).execute();
    expect(rows.map((row) => row.name).sort()).toEqual(["API_TOKEN", "REDIS_PASSWORD", "UNUSED"]);
    const stored = JSON.stringify(rows);
    for (const value of Object.values(VALUES)) {
      expect(stored).not.toContain(value);
      expect(stored).not.toContain(Buffer.from(value).toString("base64"));
    }
    expect(rows[0]!.value_sealed).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
  });

  it("writes the audit log by name only", async () => {
    const entries = (await owner.request<{ entries: AuditEntry[] }>("GET", "/api/audit")).json.entries.map(
      (e: unknown) => AuditEntry.parse(e),
    ) as AuditEntry[];
    const secretEntries = entries.filter((e) => e.action.startsWith("secret."));
    expect(secretEntries.map((e) => `${e.action} ${e.target}`)).toEqual(
      expect.arrayContaining([
        "secret.created REDIS_PASSWORD",
        "secret.replaced SHORT_LIVED",
        "secret.deleted SHORT_LIVED",
      ]),
    );
    expect(JSON.stringify(entries)).not.toMatch(/first-value|second-value|redis-pw|tok-2b8c/);
  });

  it("keeps another organisation out: it lists none of them, cannot delete or use one, and its own of the same name is its own", async () => {
    expect(SecretList.parse((await intruder.request("GET", "/api/secrets")).json).secrets).toEqual([]);
    expect((await intruder.request("DELETE", "/api/secrets/REDIS_PASSWORD")).status).toBe(404);
    const refused = await intruder.request("POST", "/api/plans", planUsingSecrets("borrowed"));
    expect(refused.status).toBe(400);
    expect(ErrorBody.parse(refused.json).error.fields?.map((f) => f.path)).toEqual([
      "target.headers.Authorization",
      "scenario.session.0.message.body",
    ]);
    expect((await putSecret(intruder, "REDIS_PASSWORD", "intruders-own-value")).status).toBe(201);
    expect((await api.deps.secrets.valuesFor(orgId, planUsingSecrets("x") as never)).values).toEqual({
      REDIS_PASSWORD: VALUES.REDIS_PASSWORD,
      API_TOKEN: VALUES.API_TOKEN,
    });
  });
});

describe("a plan naming secrets", () => {
  it("is refused at save when the organisation lacks one (400 naming the field and the secret), and at start once one is deleted (409)", async () => {
    const refused = await owner.request(
      "POST",
      "/api/plans",
      planUsingSecrets("missing", { session: [{ kind: "send", message: { body: "AUTH {{secrets.NOT_SET}}" } }] }),
    );
    expect(refused.status).toBe(400);
    expect(ErrorBody.parse(refused.json).error).toMatchObject({
      code: "validation_failed",
      fields: [
        {
          path: "scenario.session.0.message.body",
          message:
            "{{secrets.NOT_SET}} is not a secret of this organisation: an admin or owner adds it under Settings → Secrets",
        },
      ],
    });
    await putSecret(owner, "SOON_GONE", "soon-gone-value");
    const planId = await savePlan(
      owner,
      planUsingSecrets("deleted later", {
        session: [{ kind: "send", message: { body: "AUTH {{secrets.SOON_GONE}}" } }],
      }),
    );
    await owner.request("DELETE", "/api/secrets/SOON_GONE");
    const start = await owner.request("POST", `/api/plans/${planId}/runs`);
    expect(start.status).toBe(409);
    expect(ErrorBody.parse(start.json).error.message).toMatch(
      /^The plan uses \{\{secrets\.SOON_GONE\}\} \(first in scenario\.session\.0\.message\.body\), which this organisation does not have/,
    );
  });

  it("a queued run whose secret is deleted before it starts fails naming it, and no agent is given the plan", async () => {
    await putSecret(owner, "QUEUED_GONE", "queued-gone-value");
    const planId = await savePlan(
      owner,
      planUsingSecrets("queued", { session: [{ kind: "send", message: { body: "AUTH {{secrets.QUEUED_GONE}}" } }] }),
    );
    const run = RunView.parse((await owner.request("POST", `/api/plans/${planId}/runs`)).json);
    await owner.request("DELETE", "/api/secrets/QUEUED_GONE");
    await api.deps.orchestrator.start(orgId, run.id);
    const after = RunView.parse((await owner.request("GET", `/api/runs/${run.id}`)).json);
    expect(after).toMatchObject({ status: "failed", error: expect.stringContaining("{{secrets.QUEUED_GONE}}") });
  });

  it("reaches its agent with the values of the secrets it uses and no other, which never travel through Redis", async () => {
    const bus = new Redis(api.redisUrl);
    const published: string[] = [];
    await bus.subscribe(Channel.agent(agentId));
    bus.on("message", (_channel: string, message: string) => published.push(message));
    try {
      const runId = await runToTheEnd(planUsingSecrets("delivered"));
      const assignment = assignments.get(runId)!;
      expect(assignment.secrets).toEqual({ REDIS_PASSWORD: VALUES.REDIS_PASSWORD, API_TOKEN: VALUES.API_TOKEN });
      expect(assignment.plan.scenario).toMatchObject({
        session: [{ message: { body: "AUTH {{secrets.REDIS_PASSWORD}}" } }, {}],
      });
      expect(published.some((message) => message.includes(runId))).toBe(true);
      expect(published.join("\n")).not.toMatch(/redis-pw|tok-2b8c|unused-value/);
    } finally {
      bus.disconnect();
    }
  });

  it("a watcher's shard of the same run gets none: it sends nothing to the server under test", async () => {
    const { agent: watcher } = await enrolTestAgent(api.gatewayUrl, owner, { role: "watch" });
    try {
      const planId = await savePlan(owner, { ...planUsingSecrets("watched"), watch: {} });
      const run = RunView.parse((await owner.request("POST", `/api/plans/${planId}/runs`)).json);
      await api.deps.orchestrator.start(orgId, run.id);
      expect((await agent.next("run-assignment")).secrets).toEqual({
        REDIS_PASSWORD: VALUES.REDIS_PASSWORD,
        API_TOKEN: VALUES.API_TOKEN,
      });
      const watched = await watcher.next("run-assignment");
      expect(watched.role).toBe("watch");
      expect(watched.secrets).toBeUndefined();
      expect((await owner.request("POST", `/api/runs/${run.id}/abort`)).status).toBe(200);
    } finally {
      await watcher.close();
    }
  });

  it("a trial gets its secrets, and the trial view comes back without their values", async () => {
    const spec = planUsingSecrets("tried");
    const answered = owner.request("POST", "/api/plans/try", { spec, agentId });
    const trial = await agent.next("session-trial");
    expect(trial.secrets).toEqual({ REDIS_PASSWORD: VALUES.REDIS_PASSWORD, API_TOKEN: VALUES.API_TOKEN });
    // What an agent that did not take the values out would answer: the gateway takes them out anyway.
    const sent = `AUTH ${VALUES.REDIS_PASSWORD}`;
    agent.send({
      type: "session-trial-result",
      payload: {
        trialId: trial.trialId,
        connect: { ok: true, ms: 1 },
        steps: [
          {
            index: 0,
            kind: "send",
            ok: true,
            ms: 1,
            sent: { bytes: sent.length, hex: Buffer.from(sent).toString("hex"), text: sent },
            captured: { echoed: VALUES.API_TOKEN },
          },
        ],
      },
    });
    const { status, json } = await answered;
    expect(status).toBe(200);
    const view = TrialView.parse(json);
    expect(view.steps[0]).toMatchObject({
      sent: {
        text: "AUTH {{secrets.REDIS_PASSWORD}}",
        hex: `${Buffer.from("AUTH ").toString("hex")}${"2a".repeat(VALUES.REDIS_PASSWORD.length)}`,
      },
      captured: { echoed: "{{secrets.API_TOKEN}}" },
    });
    expect(JSON.stringify(json)).not.toMatch(/redis-pw|tok-2b8c/);
    const unknown = await owner.request("POST", "/api/plans/try", {
      spec: planUsingSecrets("unknown", { session: [{ kind: "send", message: { body: "{{secrets.NOPE}}" } }] }),
    });
    expect(ErrorBody.parse(unknown.json).error.fields?.map((f) => f.path)).toEqual([
      "spec.scenario.session.0.message.body",
    ]);
  });

  it("is never in the api's log", () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join("\n")).not.toMatch(/redis-pw|tok-2b8c|unused-value/);
  });
});

describe("documents that leave the organisation show the plan masked", () => {
  // The run both tests read, made by the first that needs it (expect.poll runs only inside a test).
  let shared: Promise<{ runId: string; shareToken: string }> | undefined;
  const sharedRun = () =>
    (shared ??= runToTheEnd(planUsingSecrets("shared")).then(async (runId) => ({
      runId,
      shareToken: ShareLinkCreated.parse((await owner.request("POST", `/api/runs/${runId}/share-links`, {})).json)
        .token,
    })));
  const LITERALS = /literal-query-key|literal-header-pw|literal-session-pw/;

  it("the share page's report: literal header values, session steps and a URL's query masked, placeholders as written", async () => {
    const { shareToken } = await sharedRun();
    const response = await fetch(`${api.url}/api/public/reports/${shareToken}`);
    const text = await response.text();
    expect(text).not.toMatch(LITERALS);
    const { spec } = RunReport.parse(JSON.parse(text)).run;
    expect(spec.target).toMatchObject({
      url: `ws://127.0.0.1:7070/ws?${SECRET_MASK}`,
      headers: { Authorization: "Bearer {{secrets.API_TOKEN}}", "X-Legacy": SECRET_MASK },
    });
    expect(spec.scenario).toMatchObject({
      session: [{ message: { body: "AUTH {{secrets.REDIS_PASSWORD}}" } }, { message: { body: SECRET_MASK } }],
    });
  });

  it("the JSON export and the PDF mask them too; the run itself is shown to the organisation as written", async () => {
    const { runId, shareToken } = await sharedRun();
    expect(JSON.stringify((await owner.request("GET", `/api/runs/${runId}/report`)).json)).not.toMatch(LITERALS);
    for (const url of [`/api/runs/${runId}/report.pdf`, `/api/public/reports/${shareToken}/report.pdf`]) {
      const pdf = await (await owner.open(url, AbortSignal.timeout(60_000))).arrayBuffer();
      const text = await pdfText(new Uint8Array(pdf));
      expect(text).toContain("ws://127.0.0.1:7070/ws?");
      expect(text).not.toMatch(LITERALS);
    }
    expect(JSON.stringify((await owner.request("GET", `/api/runs/${runId}`)).json)).toMatch(/literal-header-pw/);
  });
});

/** The assignment each run's agent was given. */
const assignments = new Map<
  string,
  Awaited<ReturnType<TestAgent["next"]>> & {
    runId: string;
    secrets?: Record<string, string>;
    plan: { scenario: unknown };
  }
>();

/** Saves `spec`, runs it on the test agent for its two seconds and lets the run finish. */
async function runToTheEnd(spec: ReturnType<typeof planUsingSecrets>): Promise<string> {
  const planId = await savePlan(owner, spec);
  const run = RunView.parse((await owner.request("POST", `/api/plans/${planId}/runs`)).json);
  await api.deps.orchestrator.start(orgId, run.id);
  const assignment = await agent.next("run-assignment");
  assignments.set(run.id, assignment as never);
  await playShardToTheEnd({ api, user: owner, agent, orgId }, run.id, 2, (seq) =>
    heldSnapshot(assignment, seq, 2, {
      counters: { messagesSent: 2, messagesReceived: 2, bytesSent: 128, bytesReceived: 128 },
      histograms: { rttUs: encodeValues([1_000, 2_000]) },
    }),
  );
  return run.id;
}
