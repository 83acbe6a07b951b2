import { createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll } from "vitest";
import type { PlanSpec, SessionStep } from "@throng/protocol/plan";

/**
 * Starts, for the calling test file, a TCP server on a free loopback port that hands each connection to `serve`,
 * and closes it after the file's tests; `port()` reads the port once the server listens.
 */
export function useLoopbackServer(serve: (socket: Socket) => void): { port: () => number } {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer(serve);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  return { port: () => port };
}

/** A plan's target for a server on loopback speaking protobuf's writeDelimited: each message behind a varint length. */
export function varintTcpTarget(port: number): PlanSpec["target"] {
  return {
    protocol: "tcp",
    host: "127.0.0.1",
    port,
    framing: { kind: "length-field", lengthFieldBytes: "varint", initialBytesToStrip: "header" },
  };
}

/** The session step after a protobuf join: waits for JoinOk and captures its session id, or fails on an Error. */
export const joinOkStep: SessionStep = {
  kind: "expect",
  reply: { json: { field: "joinOk.session" } },
  failWhen: { json: { field: "error.reason" } },
  capture: [{ name: "session", from: { json: "joinOk.session" } }],
};
