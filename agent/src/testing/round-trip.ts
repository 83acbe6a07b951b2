import type { OutgoingMessage, Transport } from "../transports/transport";

/** Opens one connection, sends `message` on open and resolves with the first message back. */
export function roundTrip(transport: Transport, message: OutgoingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const connection = transport.open({
      onOpen: () => connection.send(message),
      onMessage: (data) => {
        resolve(Buffer.from(data));
        void connection.close();
      },
      onEnd: (end) => end.opened || reject(end.error ?? new Error("never opened")),
    });
  });
}
