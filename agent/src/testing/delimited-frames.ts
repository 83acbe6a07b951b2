import type { Socket } from "node:net";
import protobuf from "protobufjs";

/**
 * A test server's side of protobuf's writeDelimited streams: calls `onMessage` with each varint-length-prefixed
 * message that arrives on `socket`, however the reads split it (inside the varint too). Read with protobufjs's own
 * Reader, so nothing of the agent's framing is on the server's side.
 */
export function onDelimitedMessages(socket: Socket, onMessage: (body: Buffer) => void): void {
  let pending: Buffer = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    for (;;) {
      const reader = protobuf.Reader.create(pending);
      let length: number;
      try {
        length = reader.uint32();
      } catch {
        return; // the varint itself is split
      }
      if (pending.length < reader.pos + length) return;
      const body = pending.subarray(reader.pos, reader.pos + length);
      pending = pending.subarray(reader.pos + length);
      onMessage(body);
    }
  });
}
