import type { TcpFraming } from "@throng/protocol/plan";

/** The largest message a framed stream accepts; a bigger length means the stream is out of step. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** Cuts one connection's byte stream into messages and wraps outgoing messages. */
export interface Framer {
  encode(payload: Buffer): Buffer;
  /** Feeds received bytes; calls onMessage for every complete message. Throws when the stream is corrupt. */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): void;
}

/** The delimiter bytes of a delimiter framing. */
export function delimiterBytes(framing: Extract<TcpFraming, { kind: "delimiter" }>): Buffer {
  if (framing.delimiterHex) return Buffer.from(framing.delimiterHex, "hex");
  return Buffer.from(framing.delimiter ?? "\n", "utf8");
}

/** A new framer per connection: each keeps its own partial message. */
export function createFramer(framing: TcpFraming): Framer {
  return framing.kind === "length-prefix" ? lengthPrefixFramer(framing) : delimiterFramer(delimiterBytes(framing));
}

function lengthPrefixFramer(framing: Extract<TcpFraming, { kind: "length-prefix" }>): Framer {
  const size = framing.headerBytes;
  const little = framing.byteOrder === "little";
  const extra = framing.lengthIncludesHeader ? size : 0;
  const maxLength = size === 2 ? 0xffff : MAX_FRAME_BYTES;
  let pending: Buffer | undefined;
  const readLength = (buffer: Buffer, at: number) =>
    size === 2 ? (little ? buffer.readUInt16LE(at) : buffer.readUInt16BE(at)) : little ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at);
  return {
    encode(payload) {
      const length = payload.length + extra;
      if (length > maxLength) throw new Error(`message of ${payload.length} bytes does not fit a ${size}-byte length prefix`);
      const frame = Buffer.allocUnsafe(size + payload.length);
      if (size === 2) little ? frame.writeUInt16LE(length, 0) : frame.writeUInt16BE(length, 0);
      else little ? frame.writeUInt32LE(length, 0) : frame.writeUInt32BE(length, 0);
      payload.copy(frame, size);
      return frame;
    },
    push(chunk, onMessage) {
      const buffer = pending ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      // Bounded by the buffer: every pass consumes one whole frame or stops.
      while (buffer.length - at >= size) {
        const length = readLength(buffer, at) - extra;
        if (length < 0 || length > MAX_FRAME_BYTES) throw new Error(`bad length prefix ${length + extra}`);
        if (buffer.length - at - size < length) break;
        onMessage(buffer.subarray(at + size, at + size + length));
        at += size + length;
      }
      // A copy: `chunk` may be a view of a read buffer that the next read overwrites.
      pending = at < buffer.length ? Buffer.from(buffer.subarray(at)) : undefined;
    },
  };
}

function delimiterFramer(delimiter: Buffer): Framer {
  let pending: Buffer | undefined;
  return {
    encode(payload) {
      return Buffer.concat([payload, delimiter], payload.length + delimiter.length);
    },
    push(chunk, onMessage) {
      const buffer = pending ? Buffer.concat([pending, chunk]) : chunk;
      let at = 0;
      for (let end = buffer.indexOf(delimiter, at); end !== -1; end = buffer.indexOf(delimiter, at)) {
        onMessage(buffer.subarray(at, end));
        at = end + delimiter.length;
      }
      if (buffer.length - at > MAX_FRAME_BYTES) throw new Error(`no delimiter within ${MAX_FRAME_BYTES} bytes`);
      pending = at < buffer.length ? Buffer.from(buffer.subarray(at)) : undefined;
    },
  };
}
