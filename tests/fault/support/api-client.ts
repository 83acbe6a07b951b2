import type { PlanSpecInput } from "@throng/protocol/plan";
import { LiveEnvelope, RunSeries, RunView, type RunStatus } from "@throng/protocol/run";
import { readEventData } from "../../../apps/api/src/testing/event-stream";
import { waitUntil } from "../../../infra/local/wait";
import { WEB_ORIGIN } from "./processes";

/** A signed-in browser session against one API process (any instance: they share the database). */
export interface Browser {
  request<T = unknown>(method: string, path: string, body?: unknown, apiUrl?: string): Promise<T>;
  /** GET `path` (a CSV export) with the session cookie, as text; any answer but 200 fails with its status and body. */
  text(path: string): Promise<string>;
  /** The session cookie header, for streams opened elsewhere. */
  cookie(): string;
  /** GET /api/runs/:id/live on `apiUrl`, every envelope collected until `stop()`. */
  watchLive(apiUrl: string, runId: string): Promise<LiveWatch>;
}

export interface LiveWatch {
  envelopes: LiveEnvelope[];
  stop(): void;
}

/** Signs a new user up (with the web origin the CSRF guard wants) and keeps the session cookie. */
export async function signUp(apiUrl: string): Promise<Browser> {
  let cookie = "";
  async function request<T>(method: string, path: string, body?: unknown, base = apiUrl): Promise<T> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { origin: WEB_ORIGIN, cookie, ...(body !== undefined ? { "content-type": "application/json" } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(10_000),
    });
    const setCookies = response.headers.getSetCookie();
    if (setCookies.length) cookie = setCookies.map((c) => c.split(";")[0]).join("; ");
    const text = await response.text();
    if (response.status >= 400) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : null) as T;
  }
  const email = `fault-${crypto.randomUUID().slice(0, 8)}@example.com`;
  await request("POST", "/api/auth/sign-up/email", { name: "Fault", email, password: "correct-horse-battery" });
  return {
    request,
    async text(path) {
      const response = await fetch(`${apiUrl}${path}`, { headers: { cookie }, signal: AbortSignal.timeout(10_000) });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}: ${text}`);
      return text;
    },
    cookie: () => cookie,
    async watchLive(base, runId) {
      const controller = new AbortController();
      const response = await fetch(`${base}/api/runs/${runId}/live`, {
        headers: { origin: WEB_ORIGIN, cookie },
        signal: controller.signal,
      });
      if (response.status !== 200 || !response.body) throw new Error(`live stream answered ${response.status}`);
      const envelopes: LiveEnvelope[] = [];
      void readEventData(response.body, (data) => envelopes.push(LiveEnvelope.parse(JSON.parse(data)))).catch(
        () => undefined,
      );
      return { envelopes, stop: () => controller.abort() };
    },
  };
}

export const getRun = async (browser: Browser, runId: string) =>
  RunView.parse(await browser.request("GET", `/api/runs/${runId}`));
export const getSeries = async (browser: Browser, runId: string) =>
  RunSeries.parse(await browser.request("GET", `/api/runs/${runId}/series`)).points;

/** Polls the run until it reaches one of `statuses`; returns every status seen on the way, in order. */
export async function waitForStatus(
  browser: Browser,
  runId: string,
  statuses: RunStatus[],
  timeoutMs: number,
): Promise<{ run: RunView; seen: RunStatus[] }> {
  const seen: RunStatus[] = [];
  let run: RunView | undefined;
  try {
    await waitUntil(
      async () => {
        run = await getRun(browser, runId);
        if (seen.at(-1) !== run.status) seen.push(run.status);
        return statuses.includes(run.status);
      },
      { what: `run ${runId} to become ${statuses.join(" or ")}`, timeoutMs, intervalMs: 250 },
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message} Statuses seen: ${seen.join(" → ") || "none"}; last: ${JSON.stringify(run ?? null).slice(0, 600)}`,
    );
  }
  return { run: run!, seen };
}

/** Waits until `count` agents are online and idle, so the run is split across all of them. */
export async function waitForAgents(browser: Browser, count: number): Promise<{ id: string; ip: string | null }[]> {
  let agents: { id: string; status: string; ip: string | null }[] = [];
  await waitUntil(
    async () => {
      agents = (await browser.request<{ agents: typeof agents }>("GET", "/api/agents")).agents;
      return agents.filter((a) => a.status === "online").length >= count;
    },
    { what: `${count} agents online`, timeoutMs: 30_000, intervalMs: 200 },
  );
  return agents;
}

/** A ping-pong plan: small enough for two cores, long enough to hold a fault in the middle. */
export function pingPongPlan(targetUrl: string, durationSec: number): PlanSpecInput {
  return {
    name: `fault ${crypto.randomUUID().slice(0, 6)}`,
    target: { protocol: "websocket", url: targetUrl },
    scenario: { kind: "ping-pong", intervalMs: 200, messageBytes: 64 },
    load: { clients: 4, durationSec, rampUpSec: 0 },
    agents: { labels: {}, onLost: "continue" },
  };
}
