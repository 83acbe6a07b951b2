import type { TcpFraming } from "@throng/protocol/plan";
import { startTarget } from "../target/target-server";
import { tcpTransport } from "../transports/tcp";
import type { OutgoingMessage, Transport } from "../transports/transport";

/** The stream framings the TCP tests run over: 2- and 4-byte length prefixes (either byte order) and a delimiter. */
export const TCP_FRAMINGS: TcpFraming[] = [
  { kind: "length-prefix", headerBytes: 2 },
  { kind: "length-prefix", headerBytes: 4, byteOrder: "little", lengthIncludesHeader: true },
  { kind: "delimiter", delimiter: "\r\n" },
];

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

/** Starts the reference target's TCP listener on `framing`, sends it ping `seq` over the TCP transport: its answer. */
export async function tcpPing(framing: TcpFraming, seq: number): Promise<unknown> {
  const target = await startTarget({ port: 0, tcp: { port: 0, framing } });
  try {
    const transport = tcpTransport({ protocol: "tcp", host: "127.0.0.1", port: target.tcpPort!, framing });
    return JSON.parse((await roundTrip(transport, `{"type":"ping","seq":${seq}}`)).toString());
  } finally {
    await target.close();
  }
}
