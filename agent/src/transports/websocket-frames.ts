/**
 * RFC 6455 framing, shared by the lean client and the reference target: encodes whole frames (a client's masked
 * with an all-zero key, so the payload goes out as is) and decodes a byte stream incrementally into messages and
 * control frames.
 */

import { createHash } from "node:crypto";

export const OPCODE = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;
/** The largest message the decoder accepts (what the ws library allows by default). */
export const MAX_MESSAGE_BYTES = 100 * 1024 * 1024;
const MAX_CONTROL_BYTES = 125;

/** The Sec-WebSocket-Accept value that proves a server read the client's key (RFC 6455 §4.2.2). */
export function acceptKey(key: string): string {
  return createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
}

/**
 * One whole frame (FIN set) in one buffer, so one write syscall per message. A client frame (`masked`) carries a
 * zero mask key and its payload as is, since XOR with zeros changes nothing; a server frame carries no mask.
 */
export function encodeFrame(opcode: number, payload: string | Uint8Array, masked = true): Buffer {
  const text = typeof payload === "string";
  const length = text ? Buffer.byteLength(payload) : payload.byteLength;
  const maskBit = masked ? 0x80 : 0;
  const header = (length < 126 ? 2 : length < 0x10000 ? 4 : 10) + (masked ? 4 : 0);
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x80 | opcode;
  if (length < 126) {
    frame[1] = maskBit | length;
  } else if (length < 0x10000) {
    frame[1] = maskBit | 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = maskBit | 127;
    frame.writeUInt32BE(Math.floor(length / 0x1_0000_0000), 2);
    frame.writeUInt32BE(length >>> 0, 6);
  }
  if (masked) frame.writeUInt32BE(0, header - 4);
  if (text) frame.write(payload, header, "utf8");
  else frame.set(payload, header);
  return frame;
}

/** A close frame's payload: status code and a short reason. */
export function closePayload(code: number, reason = ""): Buffer {
  const payload = Buffer.alloc(2 + Buffer.byteLength(reason));
  payload.writeUInt16BE(code, 0);
  payload.write(reason, 2, "utf8");
  return payload;
}

export interface FrameSink {
  /** A whole data message; `data` may be a view of a reused read buffer, valid only during the call. */
  frameMessage(data: Buffer, binary: boolean): void;
  framePing(payload: Buffer): void;
  frameClose(payload: Buffer): void;
}

export class ProtocolError extends Error {
  constructor(message: string) {
    super(`invalid WebSocket frame: ${message}`);
  }
}

/**
 * Decodes frames as bytes arrive: a server's (never masked) on the client, or a client's (always masked, unmasked
 * here in place) on the reference target. Complete frames inside one read are handed out as views of that read
 * (no copy); only a frame split across reads is kept, copied, until it is whole.
 */
export class FrameDecoder {
  /** Bytes of an incomplete frame, copied out of the reads they came in; none most of the time (no array per connection). */
  private held: Buffer[] | undefined = undefined;
  private heldBytes = 0;
  /** Bytes the held frame needs before it can be decoded (at least its header). */
  private needed = 2;
  /** A fragmented message being assembled, and its opcode. */
  private fragments: Buffer[] | undefined;
  private fragmentBytes = 0;
  private fragmentsBinary = false;
  private closed = false;

  /** `fromClient`: decode a client's masked frames (the server side). */
  constructor(
    private readonly sink: FrameSink,
    private readonly fromClient = false,
  ) {}

  /** Feeds one read; throws ProtocolError when the stream is not valid WebSocket from a server. */
  push(chunk: Buffer): void {
    if (this.closed) return;
    let buffer = chunk;
    if (this.heldBytes > 0) {
      this.held!.push(Buffer.from(chunk));
      this.heldBytes += chunk.length;
      if (this.heldBytes < this.needed) return;
      buffer = Buffer.concat(this.held!, this.heldBytes);
      this.held = undefined;
      this.heldBytes = 0;
    }
    let at = 0;
    // Bounded by the buffer: every pass consumes one whole frame or stops.
    while (!this.closed) {
      const frameBytes = this.frameLength(buffer, at);
      if (frameBytes < 0 || buffer.length - at < frameBytes) {
        this.needed = frameBytes < 0 ? -frameBytes : frameBytes;
        break;
      }
      this.frame(buffer, at, frameBytes);
      at += frameBytes;
    }
    if (at < buffer.length && !this.closed) {
      // The read buffer is reused by the next read: keep a copy of the partial frame.
      const rest = Buffer.from(buffer.subarray(at));
      this.held = [rest];
      this.heldBytes = rest.length;
    }
  }

  /** The whole frame's length at `at`, or minus the bytes needed to know it. */
  private frameLength(buffer: Buffer, at: number): number {
    const available = buffer.length - at;
    if (available < 2) return -2;
    const second = buffer[at + 1]!;
    if ((second & 0x80) === 0 && this.fromClient) throw new ProtocolError("a client frame is not masked");
    if (second & 0x80 && !this.fromClient) throw new ProtocolError("a server frame is masked");
    const mask = this.fromClient ? 4 : 0;
    const short = second & 0x7f;
    if (short < 126) return 2 + mask + short;
    if (short === 126) return available < 4 ? -4 : 4 + mask + buffer.readUInt16BE(at + 2);
    if (available < 10) return -10;
    const high = buffer.readUInt32BE(at + 2);
    const length = high * 0x1_0000_0000 + buffer.readUInt32BE(at + 6);
    if (length > MAX_MESSAGE_BYTES)
      throw new ProtocolError(`a ${length}-byte frame is over the ${MAX_MESSAGE_BYTES}-byte limit`);
    return 10 + mask + length;
  }

  private frame(buffer: Buffer, at: number, frameBytes: number): void {
    const first = buffer[at]!;
    if (first & 0x70) throw new ProtocolError("reserved bits set (no extension was negotiated)");
    const fin = (first & 0x80) !== 0;
    const opcode = first & 0x0f;
    const short = buffer[at + 1]! & 0x7f;
    const header = (short < 126 ? 2 : short === 126 ? 4 : 10) + (this.fromClient ? 4 : 0);
    const payload = buffer.subarray(at + header, at + frameBytes);
    if (this.fromClient) unmask(payload, buffer, at + header - 4);
    if (opcode >= 0x8) {
      this.control(opcode, fin, payload);
      return;
    }
    if (opcode === OPCODE.continuation) {
      if (!this.fragments) throw new ProtocolError("a continuation frame with no message to continue");
      this.fragments.push(Buffer.from(payload));
      this.fragmentBytes += payload.length;
      if (this.fragmentBytes > MAX_MESSAGE_BYTES)
        throw new ProtocolError(`a message over the ${MAX_MESSAGE_BYTES}-byte limit`);
      if (!fin) return;
      const whole = Buffer.concat(this.fragments, this.fragmentBytes);
      this.fragments = undefined;
      this.fragmentBytes = 0;
      this.sink.frameMessage(whole, this.fragmentsBinary);
      return;
    }
    if (opcode !== OPCODE.text && opcode !== OPCODE.binary) throw new ProtocolError(`unknown opcode ${opcode}`);
    if (this.fragments) throw new ProtocolError("a new message before the fragmented one ended");
    if (fin) {
      this.sink.frameMessage(payload, opcode === OPCODE.binary);
      return;
    }
    this.fragmentsBinary = opcode === OPCODE.binary;
    this.fragments = [Buffer.from(payload)];
    this.fragmentBytes = payload.length;
  }

  private control(opcode: number, fin: boolean, payload: Buffer): void {
    if (!fin || payload.length > MAX_CONTROL_BYTES) throw new ProtocolError("a fragmented or oversized control frame");
    if (opcode === OPCODE.ping) {
      this.sink.framePing(payload);
      return;
    }
    if (opcode === OPCODE.pong) return;
    if (opcode !== OPCODE.close) throw new ProtocolError(`unknown opcode ${opcode}`);
    this.closed = true;
    this.sink.frameClose(payload);
  }
}

/** XORs `payload` in place with the 4-byte key at `keyAt`; a zero key (what Throng's agent sends) is skipped. */
function unmask(payload: Buffer, buffer: Buffer, keyAt: number): void {
  const k0 = buffer[keyAt]!;
  const k1 = buffer[keyAt + 1]!;
  const k2 = buffer[keyAt + 2]!;
  const k3 = buffer[keyAt + 3]!;
  if ((k0 | k1 | k2 | k3) === 0) return;
  const key = [k0, k1, k2, k3];
  for (let i = 0; i < payload.length; i += 1) payload[i] = payload[i]! ^ key[i & 3]!;
}
