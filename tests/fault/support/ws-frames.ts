/**
 * Reads the text messages out of one direction of a WebSocket byte stream (after the HTTP upgrade).
 * Just enough of RFC 6455 for the agent protocol: masked or unmasked frames, continuation frames,
 * control frames skipped; no extensions (the agent turns per-message compression off, PROTOCOL.md §1).
 */
export function createFrameReader(onText: (text: string) => void) {
  let buffer: Buffer = Buffer.alloc(0);
  let fragments: Buffer[] = [];

  function nextFrame(): boolean {
    if (buffer.length < 2) return false;
    const first = buffer[0]!;
    const second = buffer[1]!;
    let length = second & 0x7f;
    let offset = 2;
    if (length === 126) {
      if (buffer.length < 4) return false;
      length = buffer.readUInt16BE(2);
      offset = 4;
    } else if (length === 127) {
      if (buffer.length < 10) return false;
      length = Number(buffer.readBigUInt64BE(2));
      offset = 10;
    }
    const masked = (second & 0x80) !== 0;
    const mask = masked ? buffer.subarray(offset, offset + 4) : undefined;
    if (masked) offset += 4;
    if (buffer.length < offset + length) return false;
    const payload = Buffer.from(buffer.subarray(offset, offset + length));
    if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
    buffer = buffer.subarray(offset + length);

    const opcode = first & 0x0f;
    const fin = (first & 0x80) !== 0;
    if (opcode >= 0x8) return true; // close, ping, pong
    fragments.push(payload);
    if (fin) {
      const whole = Buffer.concat(fragments);
      fragments = [];
      if (opcode === 0x1 || opcode === 0x0) onText(whole.toString("utf8"));
    }
    return true;
  }

  return {
    push(chunk: Buffer) {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      while (nextFrame());
    },
  };
}
