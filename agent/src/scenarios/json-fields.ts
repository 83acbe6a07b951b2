// Top-level fields of a JSON text message read off its bytes in one pass, without JSON.parse: movement-sync's
// broadcast rule reads three or four fields of every broadcast, and parsing each whole message into an object cost
// about a microsecond of the agent's ~5 per broadcast. The scan answers only for what it reads with certainty (a
// flat object: no nested object or array, no escape in a key or in a wanted string); anything else says "ask
// JSON.parse", so a message's fields are always what JSON.parse would give.

/** Fills `out[i]` (out is keys.length long) with top-level field `keys[i]`, undefined when absent; false when the caller must use JSON.parse. */
export type JsonFieldScan = (data: Buffer, out: unknown[]) => boolean;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const COMMA = 0x2c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;
const DOT = 0x2e;

const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
const isDigit = (byte: number) => byte >= ZERO && byte <= NINE;
const isHex = (byte: number | undefined) =>
  byte !== undefined && (isDigit(byte) || (byte >= 0x41 && byte <= 0x46) || (byte >= 0x61 && byte <= 0x66));
/** The bytes after a backslash that JSON allows besides `u` and four hex digits: " \ / b f n r t. */
const SIMPLE_ESCAPES = [...Buffer.from('"\\/bfnrt')];
const TRUE = Buffer.from("true");
const FALSE = Buffer.from("false");
const NULL = Buffer.from("null");

/** The end of a JSON number starting at `at`, or -1 when the bytes there are not one. */
function numberEnd(data: Buffer, at: number): number {
  let i = at;
  if (data[i] === MINUS) i += 1;
  if (data[i] === ZERO) i += 1;
  else if (isDigit(data[i]!)) while (isDigit(data[i]!)) i += 1;
  else return -1;
  if (data[i] === DOT) {
    i += 1;
    if (!isDigit(data[i]!)) return -1;
    while (isDigit(data[i]!)) i += 1;
  }
  if (data[i] === 0x65 || data[i] === 0x45) {
    i += 1;
    if (data[i] === 0x2b || data[i] === MINUS) i += 1;
    if (!isDigit(data[i]!)) return -1;
    while (isDigit(data[i]!)) i += 1;
  }
  return i;
}

/**
 * A number's value: a whole number up to 2^53 without a string (a µs timestamp has 16 digits; every step of the sum
 * is exact below 2^53), the rest as JSON.parse reads them.
 */
function numberValue(data: Buffer, from: number, to: number): number {
  const negative = data[from] === MINUS;
  let value = 0;
  let i = negative ? from + 1 : from;
  while (i < to && isDigit(data[i]!)) value = value * 10 + (data[i++]! - ZERO);
  if (i === to && value <= Number.MAX_SAFE_INTEGER) return negative ? -value : value;
  return Number(data.toString("latin1", from, to));
}

/**
 * The end of the string whose opening quote is at `at` (the index after its closing quote), or -1 when it is not a
 * valid JSON string (an unescaped control character, an escape JSON has not, or no end). `escaped[0]` says whether
 * it held a backslash.
 */
function stringEnd(data: Buffer, at: number, escaped: boolean[]): number {
  escaped[0] = false;
  for (let i = at + 1; i < data.length; i += 1) {
    const byte = data[i]!;
    if (byte === QUOTE) return i + 1;
    if (byte < 0x20) return -1;
    if (byte === BACKSLASH) {
      escaped[0] = true;
      const next = data[++i];
      if (next === 0x75) {
        for (let h = 1; h <= 4; h += 1) if (!isHex(data[i + h])) return -1;
        i += 4;
      } else if (next === undefined || !SIMPLE_ESCAPES.includes(next)) return -1;
    }
  }
  return -1;
}

function literalAt(data: Buffer, at: number, literal: Buffer): boolean {
  if (data.length < at + literal.length) return false;
  for (let i = 0; i < literal.length; i += 1) if (data[at + i] !== literal[i]) return false;
  return true;
}

/**
 * One field's last string value and its bytes: a field that says the same on every message (a "type") is compared,
 * not decoded into a new string each time.
 */
class LastString {
  private bytes = Buffer.alloc(64);
  private length = -1;
  private value = "";

  read(data: Buffer, from: number, to: number): string {
    const length = to - from;
    if (length === this.length) {
      let same = true;
      for (let i = 0; i < length && same; i += 1) same = data[from + i] === this.bytes[i];
      if (same) return this.value;
    }
    this.value = data.toString("utf8", from, to);
    if (length <= this.bytes.length) {
      data.copy(this.bytes, 0, from, to);
      this.length = length;
    } else this.length = -1;
    return this.value;
  }
}

/** Compiles a scan for these top-level keys (names as JSON.parse would give them). */
export function compileJsonFieldScan(keys: readonly string[]): JsonFieldScan {
  const wanted = keys.map((key) => Buffer.from(key));
  const strings = keys.map(() => new LastString());
  const escaped = [false];
  const keyIndex = (data: Buffer, from: number, to: number): number => {
    const length = to - from;
    for (let k = 0; k < wanted.length; k += 1) {
      const key = wanted[k]!;
      if (key.length !== length) continue;
      let same = true;
      for (let i = 0; i < length && same; i += 1) same = data[from + i] === key[i];
      if (same) return k;
    }
    return -1;
  };

  return (data, out) => {
    out.fill(undefined);
    const end = data.length;
    let i = 0;
    while (i < end && isSpace(data[i]!)) i += 1;
    if (data[i] !== OPEN) return false;
    i += 1;
    while (i < end && isSpace(data[i]!)) i += 1;
    if (data[i] === CLOSE) i += 1;
    else {
      // Bounded: every pass moves past one member or returns.
      for (;;) {
        if (data[i] !== QUOTE) return false;
        const keyEnd = stringEnd(data, i, escaped);
        if (keyEnd < 0 || escaped[0]) return false;
        const slot = keyIndex(data, i + 1, keyEnd - 1);
        i = keyEnd;
        while (i < end && isSpace(data[i]!)) i += 1;
        if (data[i] !== COLON) return false;
        i += 1;
        while (i < end && isSpace(data[i]!)) i += 1;
        const byte = data[i];
        if (byte === QUOTE) {
          const valueEnd = stringEnd(data, i, escaped);
          if (valueEnd < 0 || (slot >= 0 && escaped[0])) return false;
          // A repeated key: the last one counts, as with JSON.parse.
          if (slot >= 0) out[slot] = strings[slot]!.read(data, i + 1, valueEnd - 1);
          i = valueEnd;
        } else if (byte === MINUS || (byte !== undefined && isDigit(byte))) {
          const valueEnd = numberEnd(data, i);
          if (valueEnd < 0) return false;
          if (slot >= 0) out[slot] = numberValue(data, i, valueEnd);
          i = valueEnd;
        } else if (literalAt(data, i, TRUE)) {
          if (slot >= 0) out[slot] = true;
          i += TRUE.length;
        } else if (literalAt(data, i, FALSE)) {
          if (slot >= 0) out[slot] = false;
          i += FALSE.length;
        } else if (literalAt(data, i, NULL)) {
          if (slot >= 0) out[slot] = null;
          i += NULL.length;
        } else return false; // a nested object or array, or not JSON: JSON.parse decides
        while (i < end && isSpace(data[i]!)) i += 1;
        if (data[i] === COMMA) {
          i += 1;
          while (i < end && isSpace(data[i]!)) i += 1;
          continue;
        }
        if (data[i] !== CLOSE) return false;
        i += 1;
        break;
      }
    }
    while (i < end && isSpace(data[i]!)) i += 1;
    return i === end;
  };
}
