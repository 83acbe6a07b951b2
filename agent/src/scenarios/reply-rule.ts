import type { Capture, ReplyCheck, ReplyRule } from "@throng/protocol/session";
import { decodeJson, type ReplyDecoder } from "@throng/wire/reply-decoder";

/** Whether a reply matches a rule. `data` is valid during the call only (transport.ts). */
export type ReplyMatcher = (data: Buffer) => boolean;

/** Reads a captured value out of a reply; undefined when the reply does not hold it. */
export type CaptureReader = (data: Buffer) => string | number | undefined;

/** The value at a dotted path of a reply decoded by the plan's wire format (JSON text by default); undefined when absent. */
function valueAt(data: Buffer, path: readonly string[], decode: ReplyDecoder): unknown {
  let value = decode(data);
  for (const key of path)
    value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
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
export function compileReplyRule(rule: ReplyRule, decode: ReplyDecoder = decodeJson): ReplyMatcher {
  if ("prefixHex" in rule) return bytesAt(Buffer.from(rule.prefixHex, "hex"), 0);
  if ("bytes" in rule) return bytesAt(Buffer.from(rule.bytes.hex, "hex"), rule.bytes.offset);
  if ("regex" in rule) {
    const pattern = new RegExp(rule.regex);
    return (data) => pattern.test(data.toString("utf8"));
  }
  const path = rule.json.field.split(".");
  const { equals } = rule.json;
  return equals === undefined
    ? (data) => valueAt(data, path, decode) !== undefined
    : (data) => valueAt(data, path, decode) === equals;
}

/** A reply check as one matcher that says whether a reply is good; undefined when the scenario checks nothing. */
export function compileReplyCheck(
  check: ReplyCheck | undefined,
  decode: ReplyDecoder = decodeJson,
): ReplyMatcher | undefined {
  const expected = check?.expect ? compileReplyRule(check.expect, decode) : undefined;
  const failing = check?.failWhen ? compileReplyRule(check.failWhen, decode) : undefined;
  if (expected && failing) return (data) => !failing(data) && expected(data);
  if (failing) return (data) => !failing(data);
  return expected;
}

/** The reader for one capture: a JSON field (a number stays a number), a regex group, or raw bytes as hex or an integer. */
export function compileCapture(capture: Capture, decode: ReplyDecoder = decodeJson): CaptureReader {
  const { from } = capture;
  if ("json" in from) {
    const path = from.json.split(".");
    return (data) => {
      const value = valueAt(data, path, decode);
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

/** A "bad-reply" error's words in its sample (ping-pong, echo-flood); the bytes beside them say what came. */
export const BAD_REPLY = "the reply did not pass the plan's reply check (expect / failWhen)";
