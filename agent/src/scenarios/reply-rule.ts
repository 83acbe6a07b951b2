import type { Capture, ReplyCheck, ReplyRule } from "@throng/protocol/session";

/** Whether a reply matches a rule. `data` is valid during the call only (transport.ts). */
export type ReplyMatcher = (data: Buffer) => boolean;

/** Reads a captured value out of a reply; undefined when the reply does not hold it. */
export type CaptureReader = (data: Buffer) => string | number | undefined;

/** The value at a dotted path of a JSON reply; undefined when the reply is not JSON or has no such field. */
function jsonAt(data: Buffer, path: readonly string[]): unknown {
  let value: unknown;
  try {
    value = JSON.parse(data.toString("utf8"));
  } catch {
    return undefined;
  }
  for (const key of path) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
  return value;
}

/** A byte loop: Buffer.compare's argument checks cost more than the comparison on a few bytes. */
function bytesAt(expected: Buffer, offset: number): ReplyMatcher {
  return (data) => {
    if (data.length < offset + expected.length) return false;
    for (let i = 0; i < expected.length; i += 1) if (data[offset + i] !== expected[i]) return false;
    return true;
  };
}

/** The matcher for a rule; byte rules compare bytes without decoding the reply, a JSON rule parses it. */
export function compileReplyRule(rule: ReplyRule): ReplyMatcher {
  if ("prefixHex" in rule) return bytesAt(Buffer.from(rule.prefixHex, "hex"), 0);
  if ("bytes" in rule) return bytesAt(Buffer.from(rule.bytes.hex, "hex"), rule.bytes.offset);
  if ("regex" in rule) {
    const pattern = new RegExp(rule.regex);
    return (data) => pattern.test(data.toString("utf8"));
  }
  const path = rule.json.field.split(".");
  const { equals } = rule.json;
  return equals === undefined ? (data) => jsonAt(data, path) !== undefined : (data) => jsonAt(data, path) === equals;
}

/** A reply check as one matcher that says whether a reply is good; undefined when the scenario checks nothing. */
export function compileReplyCheck(check: ReplyCheck | undefined): ReplyMatcher | undefined {
  const expected = check?.expect ? compileReplyRule(check.expect) : undefined;
  const failing = check?.failWhen ? compileReplyRule(check.failWhen) : undefined;
  if (expected && failing) return (data) => !failing(data) && expected(data);
  if (failing) return (data) => !failing(data);
  return expected;
}

/** The reader for one capture: a JSON field (a number stays a number), a regex group, or raw bytes as hex or an integer. */
export function compileCapture(capture: Capture): CaptureReader {
  const { from } = capture;
  if ("json" in from) {
    const path = from.json.split(".");
    return (data) => {
      const value = jsonAt(data, path);
      if (value === undefined || value === null) return undefined;
      return typeof value === "number" || typeof value === "string" ? value : JSON.stringify(value);
    };
  }
  if ("regex" in from) {
    const pattern = new RegExp(from.regex);
    const group = from.group ?? 1;
    return (data) => pattern.exec(data.toString("utf8"))?.[group];
  }
  const { offset, length, as } = from.bytes;
  return (data) => {
    if (data.length < offset + length) return undefined;
    return as === "hex" ? data.toString("hex", offset, offset + length) : data.readUIntBE(offset, length);
  };
}
