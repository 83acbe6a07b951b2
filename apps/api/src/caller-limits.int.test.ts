import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorBody } from "@throng/protocol/errors";
import { ApiTokenCreated } from "@throng/protocol/orgs";
import { PlanView } from "@throng/protocol/api";
import { waitUntil } from "../../../infra/local/wait";
import { startTestApi, WEB_ORIGIN, type TestApi } from "./testing/test-api";

const plan = {
  name: "p",
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients: 5, durationSec: 5 },
};
// Fixed windows of 5 s (the limiter's own, in Redis): short enough to see one reset, long enough for a burst of three.
const windowSec = 5;
let api: TestApi;
beforeAll(async () => {
  api = await startTestApi({ rateLimits: { runCreate: { limit: 2, windowSec }, export: { limit: 2, windowSec } } });
});
afterAll(async () => {
  await api?.close();
});

async function call(auth: { token?: string; cookie?: string }, method: string, path: string) {
  const headers: Record<string, string> = auth.token
    ? { authorization: `Bearer ${auth.token}` }
    : { cookie: auth.cookie!, origin: WEB_ORIGIN };
  const response = await fetch(`${api.url}${path}`, { method, headers });
  return { status: response.status, retryAfter: response.headers.get("retry-after"), text: await response.text() };
}

/** Waits for the start of a fresh window, so a burst of a few calls cannot straddle a reset. */
async function atWindowStart() {
  await new Promise((resolve) => setTimeout(resolve, windowSec * 1000 - (Date.now() % (windowSec * 1000)) + 50));
}

describe("per-caller rate limits on the costly calls (Redis, shared by every API instance)", () => {
  it("the N+1th run start of one API token answers 429 with Retry-After; another token is not affected; the limit resets", async () => {
    const owner = await api.signUp("Limited");
    const { id: planId } = PlanView.parse((await owner.request("POST", "/api/plans", plan)).json);
    const [ci, other] = await Promise.all(
      ["ci", "other"].map(
        async (name) =>
          ApiTokenCreated.parse((await owner.request("POST", "/api/tokens", { name, scope: "run" })).json).token,
      ),
    );
    const start = (token: string) => call({ token }, "POST", `/api/plans/${planId}/runs`);

    await atWindowStart();
    // No agent is online, so an allowed start answers 409; it still counts, as a CI loop's failures would.
    expect((await start(ci!)).status).toBe(409);
    expect((await start(ci!)).status).toBe(409);
    const refused = await start(ci!);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(windowSec);
    expect(ErrorBody.parse(JSON.parse(refused.text)).error).toMatchObject({
      code: "rate_limited",
      message: expect.stringMatching(
        /^Too many runs started by this API token \(at most 2 per 5 s\); try again in \d s$/,
      ),
    });
    expect((await start(other!)).status).toBe(409);

    // Once Retry-After has passed, the token may start runs again.
    await new Promise((resolve) => setTimeout(resolve, Number(refused.retryAfter) * 1000));
    let after = 0;
    await waitUntil(
      async () => {
        after = (await start(ci!)).status;
        return after !== 429;
      },
      { what: "the run-start limit to reset", timeoutMs: 3_000, intervalMs: 250 },
    );
    expect(after).toBe(409);
  }, 30_000);

  it("exports (report and CSV) share one limit per browser session", async () => {
    const user = await api.signUp("Exporter");
    const cookie = await user.cookie();
    const runId = crypto.randomUUID(); // no such run: each allowed export answers 404, and still counts
    await atWindowStart();
    expect((await call({ cookie }, "GET", `/api/runs/${runId}/report`)).status).toBe(404);
    expect((await call({ cookie }, "GET", `/api/runs/${runId}/series.csv`)).status).toBe(404);
    const refused = await call({ cookie }, "GET", `/api/runs/${runId}/series.csv`);
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    expect(JSON.parse(refused.text).error.message).toMatch(
      /^Too many report exports by this session \(at most 2 per 5 s\)/,
    );
    // Another user's session has its own count.
    const other = await api.signUp("Other");
    expect((await call({ cookie: await other.cookie() }, "GET", `/api/runs/${runId}/report`)).status).toBe(404);
  }, 30_000);
});
