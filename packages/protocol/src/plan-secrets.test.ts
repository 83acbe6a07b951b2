import { describe, expect, it } from "vitest";
import { PlanSpec } from "./plan";
import { planIssues } from "./plan-spec.test-support";
import {
  maskPlanSecrets,
  MissingSecretsError,
  redactSecrets,
  SECRET_MASK,
  secretNamesUsed,
  secretsUsed,
  withSecrets,
} from "./plan-secrets";

/**
 * One client pinging a WebSocket server for a second: what a test is about is in the target's `url` and `headers` and
 * in the ping-pong `scenario`'s messages.
 */
function webSocketPingPlan({
  name,
  url,
  headers,
  scenario,
}: {
  name: string;
  url: string;
  headers: Record<string, string>;
  scenario: Record<string, unknown>;
}): PlanSpec {
  return PlanSpec.parse({
    name,
    target: { protocol: "websocket", url, headers },
    scenario: { kind: "ping-pong", intervalMs: 1000, ...scenario },
    load: { clients: 1, durationSec: 1 },
  });
}

// A Redis-like login over WebSocket: a token in the target's header and URL, a password in a session step, a login
// service's http step, and the scenario's own ping.
const plan = webSocketPingPlan({
  name: "secrets",
  url: "ws://127.0.0.1:7070/ws?key={{secrets.API_KEY}}",
  headers: { Authorization: "Bearer {{secrets.TOKEN}}", "X-Team": "lobby" },
  scenario: {
    message: { format: "json", body: '{"type":"ping","seq":{{seq}},"auth":"{{secrets.TOKEN}}"}' },
    session: [
      {
        kind: "http",
        method: "POST",
        url: "http://127.0.0.1:8080/login?u=bot{{client}}&p={{secrets.PASSWORD}}",
        headers: { "X-Api-Key": "{{secrets.API_KEY}}" },
        body: { format: "json", body: '{"password":"{{secrets.PASSWORD}}"}' },
      },
      { kind: "send", message: { body: "AUTH {{secrets.PASSWORD}}" } },
      { kind: "send", message: { format: "hex", body: "01{{secrets.PASSWORD}}" } },
    ],
  },
});
const values = { API_KEY: "k/1 2", TOKEN: 'tok"en', PASSWORD: "hunter2" };

describe("{{secrets.NAME}} in a plan", () => {
  it("lists each secret the plan uses with the field it is in", () => {
    expect(secretNamesUsed(plan)).toEqual(["API_KEY", "PASSWORD", "TOKEN"]);
    expect(secretsUsed(plan)).toContainEqual({ name: "PASSWORD", path: "scenario.session.1.message.body" });
    expect(secretsUsed(plan)).toContainEqual({ name: "API_KEY", path: "target.url" });
  });

  it("writes each value in as its field needs it: URL-encoded, escaped inside JSON, hex bytes, as written elsewhere", () => {
    const filled = withSecrets(plan, values);
    expect(filled.target).toMatchObject({
      url: "ws://127.0.0.1:7070/ws?key=k%2F1%202",
      headers: { Authorization: 'Bearer tok"en' },
    });
    const [http, auth, hex] = filled.scenario.kind === "ping-pong" ? filled.scenario.session! : [];
    expect(http).toMatchObject({
      url: "http://127.0.0.1:8080/login?u=bot{{client}}&p=hunter2",
      headers: { "X-Api-Key": "k/1 2" },
      body: { body: '{"password":"hunter2"}' },
    });
    expect(auth).toMatchObject({ message: { body: "AUTH hunter2" } });
    expect(hex).toMatchObject({ message: { body: `01${Buffer.from("hunter2").toString("hex")}` } });
    expect(
      filled.scenario.kind === "ping-pong" && JSON.parse(filled.scenario.message!.body.replace("{{seq}}", "1")),
    ).toMatchObject({ auth: 'tok"en' });
    // The plan given is left as it was, and a plan without secrets is returned as it is.
    expect(plan.target).toMatchObject({ headers: { Authorization: "Bearer {{secrets.TOKEN}}" } });
    const plain = {
      ...plan,
      target: { protocol: "tcp" as const, host: "127.0.0.1", port: 1, framing: { kind: "delimiter" as const } },
      scenario: { kind: "echo-flood" as const, messageBytes: 8 },
    };
    expect(withSecrets(plain, {})).toBe(plain);
  });

  it("names every secret that has no value, and where it is used", () => {
    const error = (() => {
      try {
        withSecrets(plan, { TOKEN: "t" });
      } catch (caught) {
        return caught as MissingSecretsError;
      }
    })();
    expect(error).toBeInstanceOf(MissingSecretsError);
    expect(new Set(error!.missing.map((use) => use.name))).toEqual(new Set(["API_KEY", "PASSWORD"]));
    expect(error!.message).toContain("{{secrets.API_KEY}} (target.url)");
    expect(() => withSecrets(plan, { ...values, TOKEN: "a\r\nb" })).toThrow(
      "{{secrets.TOKEN}} holds a line break, which cannot go in a header (target.headers.Authorization)",
    );
  });

  it("is refused where it cannot be written in, or when it is not {{secrets.NAME}}", () => {
    const issues = (change: (spec: Record<string, unknown>) => void) => {
      const spec = structuredClone(plan) as unknown as Record<string, unknown>;
      change(spec);
      return planIssues(spec);
    };
    expect(issues((spec) => (spec.name = "run {{secrets.TOKEN}}"))).toEqual([
      expect.stringMatching(/^name: \{\{secrets\.NAME\}\} works only in message templates/),
    ]);
    expect(
      issues((spec) => ((spec.scenario as { reply?: unknown }).reply = { expect: { regex: "{{secrets.TOKEN}}" } })),
    ).toEqual([expect.stringMatching(/^scenario\.reply\.expect\.regex: \{\{secrets\.NAME\}\} works only/)]);
    expect(
      issues(
        (spec) => ((spec.target as { headers: Record<string, string> }).headers["X-Team"] = "{{secrets.bad-name}}"),
      ),
    ).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^target\.headers\.X-Team: "\{\{secrets\.bad-name\}\}" is not a secret/),
      ]),
    );
    expect(issues(() => {})).toEqual([]);
  });
});

describe("a plan masked for documents that leave the organisation", () => {
  const literal = webSocketPingPlan({
    name: "literal passwords",
    url: "ws://bot:pw@127.0.0.1:7070/ws?token=abc#x",
    headers: { Authorization: "Bearer abc", "X-Key": "{{secrets.KEY}}" },
    scenario: {
      message: { body: "PING {{seq}}" },
      session: [
        { kind: "http", url: "http://127.0.0.1:8080/match?ticket=t1", headers: { Cookie: "sid=1" } },
        { kind: "send", message: { body: "AUTH secret" } },
        { kind: "send", message: { body: "AUTH {{secrets.PASSWORD}}" } },
      ],
      heartbeat: { intervalMs: 1000, message: { body: "KEEP secret" } },
      respond: [{ when: { regex: "^PING" }, send: { body: "PONG secret" } }],
    },
  });

  it("masks literal header values, session steps, answers, heartbeats and a URL's credentials and query; shows placeholders and the traffic", () => {
    const masked = maskPlanSecrets(literal);
    expect(masked.target).toMatchObject({
      url: `ws://${SECRET_MASK}@127.0.0.1:7070/ws?${SECRET_MASK}`,
      headers: { Authorization: SECRET_MASK, "X-Key": "{{secrets.KEY}}" },
    });
    const scenario = masked.scenario.kind === "ping-pong" ? masked.scenario : undefined;
    expect(scenario?.message?.body).toBe("PING {{seq}}");
    expect(scenario?.session).toMatchObject([
      { url: `http://127.0.0.1:8080/match?${SECRET_MASK}`, headers: { Cookie: SECRET_MASK } },
      { message: { body: SECRET_MASK } },
      { message: { body: "AUTH {{secrets.PASSWORD}}" } },
    ]);
    expect(scenario?.heartbeat?.message?.body).toBe(SECRET_MASK);
    expect(scenario?.respond?.[0]?.send.body).toBe(SECRET_MASK);
    expect(JSON.stringify(masked)).not.toMatch(/secret"|abc|pw@|t1|sid=1/);
    // Still a plan: the report's schema parses it.
    expect(PlanSpec.safeParse(masked).success).toBe(true);
  });
});

describe("redactSecrets", () => {
  it("puts the placeholder back wherever a value went out as written, URL-encoded or JSON-escaped", () => {
    const text = `GET /login?p=k%2F1%202 {"t":"tok\\"en"} AUTH hunter2`;
    expect(redactSecrets(text, values)).toBe(
      `GET /login?p={{secrets.API_KEY}} {"t":"{{secrets.TOKEN}}"} AUTH {{secrets.PASSWORD}}`,
    );
  });
});
