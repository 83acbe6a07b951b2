import type { LengthFieldFraming, TcpFraming } from "@throng/protocol/plan";

/** The largest message a length-prefix or delimiter framing accepts; a bigger length means the stream is out of step. */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;
/** A length-field framing's default maxFrameBytes. */
export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
/** A base-128 varint of a 64-bit number takes at most 10 bytes; a longer run of continuation bits is corrupt. */
const MAX_VARINT_BYTES = 10;

/** Cuts one connection's byte stream into messages and wraps outgoing messages. */
export interface Framer {
  encode(payload: Buffer): Buffer;
  /** Feeds received bytes; calls onMessage for every complete message. Throws a FramingError when the stream is corrupt. */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): void;
}

/** The peer broke the framing (a length out of range, no delimiter in sight): the connection ends as a protocol error. */
export class FramingError extends Error {
  /** transport.ts's causeOf reads it as the "protocol" cause (not EPROTO: TLS errors carry that one). */
  readonly code = "ERR_FRAMING";
}

/** The delimiter bytes of a delimiter framing. */
export function delimiterBytes(framing: Extract<TcpFraming, { kind: "delimiter" }>): Buffer {
  if (framing.delimiterHex) return Buffer.from(framing.delimiterHex, "hex");
  return Buffer.from(framing.delimiter ?? "\n", "utf8");
}

/** A new framer per connection: each keeps its own partial message. */
export function createFramer(framing: TcpFraming): Framer {
  return framing.kind === "delimiter"
    ? delimiterFramer(delimiterBytes(framing))
    : lengthFieldFramer(lengthFieldOf(framing));
}

/** A length field with every default applied; `name` is how errors call it. */
interface LengthField {
  offset: number;
  bytes: LengthFieldFraming["lengthFieldBytes"];
  little: boolean;
  adjustment: number;
  /** Bytes cut from each frame's front; "header" cuts the offset and the field, whatever the varint's size. */
  strip: number | "header";
  maxFrameBytes: number;
  name: string;
}

/** The old length-prefix kind is a length field at offset 0 whose header the scenario never sees. */
function lengthFieldOf(framing: Exclude<TcpFraming, { kind: "delimiter" }>): LengthField {
  const little = framing.byteOrder === "little";
  if (framing.kind === "length-prefix") {
    const size = framing.headerBytes;
    const adjustment = framing.lengthIncludesHeader ? -size : 0;
    return {
      offset: 0,
      bytes: size,
      little,
      adjustment,
      strip: size,
      maxFrameBytes: size + MAX_FRAME_BYTES,
      name: `${size}-byte length prefix`,
    };
  }
  const bytes = framing.lengthFieldBytes;
  return {
    offset: framing.lengthFieldOffset ?? 0,
    bytes,
    little,
    adjustment: framing.lengthAdjustment ?? 0,
    strip: framing.initialBytesToStrip ?? 0,
    maxFrameBytes: framing.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    name: bytes === "varint" ? "varint length field" : `${bytes}-byte length field`,
  };
}

/** The largest value a field of this size holds (an 8-byte field or a varint: the largest exact JavaScript integer). */
function fieldMax(bytes: LengthField["bytes"]): number {
  return bytes === "varint" || bytes === 8 ? Number.MAX_SAFE_INTEGER : 2 ** (8 * bytes) - 1;
}

function fixedReader(
  bytes: Exclude<LengthField["bytes"], "varint">,
  little: boolean,
): (buffer: Buffer, at: number) => number {
  switch (bytes) {
    case 1:
      return (buffer, at) => buffer[at]!;
    case 2:
      return little ? (buffer, at) => buffer.readUInt16LE(at) : (buffer, at) => buffer.readUInt16BE(at);
    case 3:
      return little ? (buffer, at) => buffer.readUIntLE(at, 3) : (buffer, at) => buffer.readUIntBE(at, 3);
    case 4:
      return little ? (buffer, at) => buffer.readUInt32LE(at) : (buffer, at) => buffer.readUInt32BE(at);
    case 8:
      return (buffer, at) => {
        const high = little ? buffer.readUInt32LE(at + 4) : buffer.readUInt32BE(at);
        const low = little ? buffer.readUInt32LE(at) : buffer.readUInt32BE(at + 4);
        // Above 2^53 - 1 a JavaScript number is no longer exact: no real frame is that long anyway.
        if (high > 0x1fffff) throw new FramingError("bad length field: an 8-byte length above 2^53");
        return high * 0x1_0000_0000 + low;
      };
  }
}

function fixedWriter(
  bytes: Exclude<LengthField["bytes"], "varint">,
  little: boolean,
): (frame: Buffer, value: number) => void {
  if (bytes !== 8)
    return little
      ? (frame, value) => frame.writeUIntLE(value, 0, bytes)
      : (frame, value) => frame.writeUIntBE(value, 0, bytes);
  return (frame, value) => {
    const high = Math.floor(value / 0x1_0000_0000);
    const low = value % 0x1_0000_0000;
    if (little) {
      frame.writeUInt32LE(low, 0);
      frame.writeUInt32LE(high, 4);
    } else {
      frame.writeUInt32BE(high, 0);
      frame.writeUInt32BE(low, 4);
    }
  };
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size += 1;
  return size;
}

function writeVarint(frame: Buffer, value: number): void {
  let at = 0;
  let rest = value;
  for (; rest >= 0x80; rest = Math.floor(rest / 0x80)) frame[at++] = (rest % 0x80) | 0x80;
  frame[at] = rest;
}

/**
 * Netty's LengthFieldBasedFrameDecoder: a frame is offset + the field's bytes + its value + adjustment long. Reading
 * looks at the header only and hands out views of the read, so frames whole in one read cost no copy; a frame split
 * across reads is gathered once into a buffer of its own size. Sending prepends the field (offset 0 only) with the
 * value that makes the frame exactly the field and the message.
 */
function lengthFieldFramer(field: LengthField): Framer {
  const { offset, adjustment, strip, maxFrameBytes } = field;
  const varint = field.bytes === "varint";
  const size = field.bytes === "varint" ? MAX_VARINT_BYTES : field.bytes;
  const readFixed = field.bytes === "varint" ? undefined : fixedReader(field.bytes, field.little);
  const writeFixed = field.bytes === "varint" ? undefined : fixedWriter(field.bytes, field.little);
  const max = fieldMax(field.bytes);
  /** The most bytes a header (offset and field) can take. */
  const headerMax = offset + size;
  /** The start of a frame split across reads: `pendingLength` bytes of a `pendingFrame`-byte frame (0: length not read yet). */
  let pending: Buffer | undefined;
  let pendingLength = 0;
  let pendingFrame = 0;
  /** What the last header read found: where a varint ended (an index into the buffer read), and the bytes to strip. */
  let fieldEnd = 0;
  // A fixed field's header never changes size: its cut is set once here, a varint's per frame.
  let cut = strip === "header" ? headerMax : strip;
  /** Whether a cut can pass the frame's end: only a number of bytes beyond the smallest header can. */
  const stripMayOverrun = strip !== "header" && strip > (readFixed ? headerMax : offset + 1);

  /** A varint's value at `at`, or -1 until all of its bytes have arrived; sets `fieldEnd`. */
  const readVarint = (buffer: Buffer, at: number): number => {
    let value = 0;
    let scale = 1;
    for (let i = at; i < buffer.length; i += 1) {
      const byte = buffer[i]!;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) {
        fieldEnd = i + 1;
        return value;
      }
      if (i - at + 1 >= MAX_VARINT_BYTES)
        throw new FramingError(`bad length field: a varint longer than ${MAX_VARINT_BYTES} bytes`);
      scale *= 0x80;
    }
    return -1;
  };

  /** The length of the frame at `at`, or -1 until its header has arrived; sets a varint's `cut` for it. */
  const frameAt = (buffer: Buffer, at: number): number => {
    let value: number;
    let headerBytes: number;
    if (readFixed) {
      // Fixed fields, the common case, read straight from the buffer: their header's size never changes.
      if (buffer.length - at < headerMax) return -1;
      value = readFixed(buffer, at + offset);
      headerBytes = headerMax;
    } else {
      if (buffer.length - at <= offset) return -1;
      value = readVarint(buffer, at + offset);
      if (value < 0) return -1;
      headerBytes = fieldEnd - at;
      if (strip === "header") cut = headerBytes;
    }
    const frameBytes = headerBytes + value + adjustment;
    if (frameBytes > maxFrameBytes)
      throw new FramingError(
        `bad length field: ${value} makes a frame of ${frameBytes} bytes, over maxFrameBytes (${maxFrameBytes})`,
      );
    if (frameBytes < headerBytes)
      throw new FramingError(`bad length field: ${value} plus lengthAdjustment ${adjustment} is below 0`);
    if (stripMayOverrun && cut > frameBytes)
      throw new FramingError(
        `bad length field: a frame of ${frameBytes} bytes is shorter than initialBytesToStrip ${cut}`,
      );
    return frameBytes;
  };

  /** Copies chunk[from, to) after the pending bytes, in a buffer of `capacity` bytes at least. */
  const gather = (chunk: Buffer, from: number, to: number, capacity: number) => {
    if (!pending || pending.length < capacity) {
      const grown = Buffer.allocUnsafe(capacity);
      pending?.copy(grown, 0, 0, pendingLength);
      pending = grown;
    }
    chunk.copy(pending, pendingLength, from, to);
    pendingLength += to - from;
  };

  /** Feeds the pending frame from the chunk's front: the chunk's bytes it took once the frame is whole (and handed out), else -1. */
  const completePending = (chunk: Buffer, onMessage: (message: Buffer) => void): number => {
    let taken = 0;
    if (pendingFrame === 0) {
      // Only the header is missing: take no more than a header can be, then read it.
      taken = Math.min(chunk.length, headerMax - pendingLength);
      gather(chunk, 0, taken, headerMax);
      const frameBytes = frameAt(pending!.subarray(0, pendingLength), 0);
      if (frameBytes < 0) return -1;
      pendingFrame = frameBytes;
      // A frame shorter than a header's most bytes may be whole already: give the chunk back what follows it.
      if (frameBytes < pendingLength) {
        taken -= pendingLength - frameBytes;
        pendingLength = frameBytes;
      }
    }
    const more = Math.min(chunk.length - taken, pendingFrame - pendingLength);
    gather(chunk, taken, taken + more, pendingFrame);
    if (pendingLength < pendingFrame) return -1;
    // The frame's own buffer: the message stays valid after this call, and the next split frame gets a new one.
    onMessage(pending!.subarray(cut, pendingFrame));
    pending = undefined;
    pendingLength = pendingFrame = 0;
    return taken + more;
  };

  return {
    encode(payload) {
      // At an offset the scenario's message carries its own header, length field included.
      if (offset > 0) return payload;
      const value = payload.length - adjustment;
      if (value < 0)
        throw new Error(`message of ${payload.length} bytes is shorter than lengthAdjustment ${adjustment} allows`);
      if (value > max) throw new Error(`message of ${payload.length} bytes does not fit a ${field.name}`);
      const header = varint ? varintSize(value) : size;
      if (header + payload.length > maxFrameBytes)
        throw new Error(
          `message of ${payload.length} bytes makes a frame longer than maxFrameBytes (${maxFrameBytes})`,
        );
      const frame = Buffer.allocUnsafe(header + payload.length);
      if (varint) writeVarint(frame, value);
      else writeFixed!(frame, value);
      payload.copy(frame, header);
      return frame;
    },
    push(chunk, onMessage) {
      let at = pendingLength > 0 ? completePending(chunk, onMessage) : 0;
      if (at < 0) return;
      // Bounded by the chunk: every pass hands out one whole frame (at least its field's byte) or stops.
      for (;;) {
        const frameBytes = frameAt(chunk, at);
        if (frameBytes < 0 || chunk.length - at < frameBytes) {
          // `chunk` may be a view of a read buffer that the next read overwrites: keep a copy of the frame's start.
          if (at < chunk.length) {
            pendingFrame = Math.max(frameBytes, 0);
            gather(chunk, at, chunk.length, frameBytes < 0 ? headerMax : frameBytes);
          }
          return;
        }
        onMessage(chunk.subarray(at + cut, at + frameBytes));
        at += frameBytes;
      }
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
      if (buffer.length - at > MAX_FRAME_BYTES) throw new FramingError(`no delimiter within ${MAX_FRAME_BYTES} bytes`);
      pending = at < buffer.length ? Buffer.from(buffer.subarray(at)) : undefined;
    },
  };
}
