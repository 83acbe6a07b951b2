import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { WebSocketServer } from "ws";
import type { PlanSpec, SessionStep } from "@throng/protocol/plan";
import { runPlan, total, totalsByKind } from "../testing/assignment";

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A matchmaking service on loopback: POST /match with {"client":N} answers {"ticket":"t-N"} (or `status`). */
async function matchmaker(status = 200): Promise<{ url: string; requests: string[] }> {
  const requests: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = "";
    request.on("data", (chunk: Buffer) => (body += chunk.toString()));
    request.on("end", () => {
      requests.push(`${request.method} ${request.url} ${request.headers["content-type"]} ${body}`);
      const { client } = JSON.parse(body || "{}") as { client?: number };
      response.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify({ ticket: `t-${client}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/match`, requests };
}

/** A game server that admits only a ticket in the URL matching the Authorization header (else closes with 4001), then echoes. */
async function gameServer(): Promise<{ url: string; admitted: string[]; refused: number }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const seen = {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/game`,
    admitted: [] as string[],
    refused: 0,
  };
  wss.on("connection", (socket, request) => {
    const ticket = new URL(request.url ?? "", "http://x").searchParams.get("ticket");
    if (!ticket || !/^t-\d+$/.test(ticket) || request.headers.authorization !== `Bearer ${ticket}`) {
      seen.refused += 1;
      return socket.close(4001, "bad ticket");
    }
    seen.admitted.push(ticket);
    socket.on("message", (data, binary) => socket.send(data, { binary }));
  });
  closers.push(() => new Promise((resolve) => wss.close(() => resolve())));
  return seen;
}

const matchStep = (url: string): SessionStep => ({
  kind: "http",
  method: "POST",
  url,
  body: { format: "json", body: '{"client":{{client}}}' },
  capture: [{ name: "ticket", from: { json: "ticket" } }],
});

function plan(gameUrl: string, steps: SessionStep[], clients = 4): Omit<PlanSpec, "name"> {
  return {
    target: {
      protocol: "websocket",
      url: `${gameUrl}?ticket={{vars.ticket}}`,
      headers: { Authorization: "Bearer {{vars.ticket}}" },
      frames: "binary",
    },
    scenario: { kind: "echo-flood", messageBytes: 8, maxInFlight: 1, session: steps },
    load: { clients, durationSec: 1, rampUpSec: 0 },
  };
}

describe("http session steps", () => {
  it("a matchmaking POST's captured ticket goes into each client's WebSocket url and Authorization header", async () => {
    const match = await matchmaker();
    const game = await gameServer();
    const snapshots = await runPlan(plan(game.url, [matchStep(match.url)]));
    expect(match.requests.sort()).toEqual([0, 1, 2, 3].map((n) => `POST /match application/json {"client":${n}}`));
    expect(game.admitted.sort()).toEqual(["t-0", "t-1", "t-2", "t-3"]);
    expect(game.refused).toBe(0);
    expect(total(snapshots, "errors")).toBe(0);
    expect(total(snapshots, "messagesReceived")).toBeGreaterThan(4); // every client echoes once admitted
  });

  it("an unexpected status fails each session as http-status, opens no socket, and is said in the log once", async () => {
    const match = await matchmaker(500);
    const game = await gameServer();
    const warn = vi.spyOn(console, "error").mockImplementation(() => {});
    const snapshots = await runPlan(plan(game.url, [matchStep(match.url)]));
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "http-status": 4 });
    expect(total(snapshots, "connectionsOpened") + total(snapshots, "connectionsFailed")).toBe(0);
    expect(game.admitted.length + game.refused).toBe(0);
    const said = warn.mock.calls.filter(([line]) => String(line).includes("500"));
    expect(said).toHaveLength(1);
  });

  it("a refused port fails each session as http-error", async () => {
    const game = await gameServer();
    const unused = createServer();
    await new Promise<void>((resolve) => unused.listen(0, "127.0.0.1", resolve));
    const port = (unused.address() as AddressInfo).port;
    await new Promise((resolve) => unused.close(resolve));
    const snapshots = await runPlan(plan(game.url, [matchStep(`http://127.0.0.1:${port}/match`)]));
    expect(totalsByKind(snapshots, "errorsByKind")).toEqual({ "http-error": 4 });
    expect(game.admitted.length + game.refused).toBe(0);
  });

  it("a ticket the game server refuses closes with 4001: without the header the clients are dropped", async () => {
    const match = await matchmaker();
    const game = await gameServer();
    const base = plan(game.url, [matchStep(match.url)], 2);
    const snapshots = await runPlan({
      ...base,
      target: { protocol: "websocket", url: `${game.url}?ticket={{vars.ticket}}`, frames: "binary" },
    });
    expect(game.refused).toBe(2);
    expect(game.admitted).toEqual([]);
    expect(totalsByKind(snapshots, "errorsByKind")["closed-by-server"]).toBe(2);
  });
});
