import type { BroadcastRule, Extractor, ReplyRule } from "@throng/protocol/session";
import { compileJsonFieldScan, type JsonFieldScan } from "./json-fields";
import { decodeJson, type ReplyDecoder } from "@throng/wire/reply-decoder";
import { compileReplyRule } from "./reply-rule";

// Reads a room broadcast of any server (movement-sync's `broadcast` rule), compiled once per shard. One message is
// decoded at most once, whatever the rule reads: its text once for every regex, its decoded value once for every
// json path, and byte extractors read the bytes themselves. JSON text whose json paths are all top-level fields is
// not decoded at all: one scan of its bytes reads them (json-fields.ts), with JSON.parse only when the scan cannot.

/** What one broadcast said. `sentAtUs` is NaN when the rule reads none (the agent's own send record times it). */
export interface Broadcast {
  sender: number;
  seq: number;
  sentAtUs: number;
}

/**
 * "not-broadcast": the filter refused it, or (with no filter) it lacks a field: ignored.
 * "incomplete": the filter took it for a broadcast but it lacks the sender, seq or send time.
 */
export type BroadcastRead = "ok" | "not-broadcast" | "incomplete";

/** Reads one received message into `out`; `data` is valid during the call only. */
export type BroadcastReader = (data: Buffer, out: Broadcast) => BroadcastRead;

/** One message as the rule reads it: its text and its decoded value, each made on first use. */
class MessageView {
  data: Buffer = Buffer.alloc(0);
  private text: string | undefined;
  private decoded = false;
  private value: unknown;
  /** One exec per distinct regular expression per message (sender, seq and sentAtUs may share one). */
  readonly found: (RegExpExecArray | null | undefined)[];
  /** With a field scan: its values by field, and whether this message was scanned and the scan could read it. */
  private readonly fields: unknown[];
  private scanned = false;
  private scanRead = false;

  constructor(
    private readonly decode: ReplyDecoder,
    patterns: number,
    private readonly scan: { run: JsonFieldScan; fields: number } | undefined,
  ) {
    this.found = new Array<RegExpExecArray | null | undefined>(patterns).fill(undefined);
    this.fields = new Array<unknown>(scan?.fields ?? 0).fill(undefined);
  }

  reset(data: Buffer): void {
    this.data = data;
    this.text = undefined;
    this.decoded = false;
    this.value = undefined;
    this.scanned = false;
    if (this.found.length) this.found.fill(undefined);
  }

  textOf(): string {
    this.text ??= this.data.toString("utf8");
    return this.text;
  }

  /** The value at `path`; `field` is its index in the scan's fields when the rule has a scan. */
  valueAt(path: readonly string[], field: number): unknown {
    if (this.scan) {
      if (!this.scanned) {
        this.scanned = true;
        this.scanRead = this.scan.run(this.data, this.fields);
      }
      if (this.scanRead) return this.fields[field];
    }
    if (!this.decoded) {
      this.value = this.decode(this.data);
      this.decoded = true;
    }
    let value = this.value;
    for (const key of path)
      value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
    return value;
  }
}

type ViewReader = (view: MessageView) => number | undefined;

/** A decoded field as a number: numbers, bigints (MessagePack's 64-bit) and integer strings (protobuf past 2^53). */
export function numberOf(value: unknown): number | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? value : undefined;
  if (typeof value === "bigint") return Number(value);
  if (typeof value === "string" && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  return undefined;
}

/** An unsigned integer of 1–8 bytes without allocating (exact up to 2^53). */
export function readUnsigned(data: Buffer, offset: number, length: number, little: boolean): number | undefined {
  if (data.length < offset + length) return undefined;
  let value = 0;
  if (little) for (let i = length - 1; i >= 0; i -= 1) value = value * 256 + data[offset + i]!;
  else for (let i = 0; i < length; i += 1) value = value * 256 + data[offset + i]!;
  return value;
}

/** Compiles the rule; `decode` is the plan's reply decoder (wire-format.ts), used only by json paths. */
export function compileBroadcastRule(rule: BroadcastRule, decode: ReplyDecoder = decodeJson): BroadcastReader {
  const sources: string[] = [];
  const patterns: RegExp[] = [];
  const patternIndex = (source: string) => {
    const at = sources.indexOf(source);
    if (at >= 0) return at;
    sources.push(source);
    return patterns.push(new RegExp(source)) - 1;
  };
  // Every json path the rule reads, so that JSON text with top-level ones only is scanned, not parsed.
  const paths: string[] = [];
  const fieldIndex = (path: string) => (paths.includes(path) ? paths.indexOf(path) : paths.push(path) - 1);
  const extractor = (from: Extractor): ViewReader => {
    if ("json" in from) {
      const path = from.json.split(".");
      const field = fieldIndex(from.json);
      return (view) => numberOf(view.valueAt(path, field));
    }
    if ("regex" in from) {
      const at = patternIndex(from.regex);
      const group = from.group ?? 1;
      return (view) => {
        let found = view.found[at];
        if (found === undefined) found = view.found[at] = patterns[at]!.exec(view.textOf());
        const text = found?.[group];
        return text ? numberOf(text) : undefined;
      };
    }
    const { offset, length } = from.bytes;
    const little = from.bytes.byteOrder === "little";
    return (view) => readUnsigned(view.data, offset, length, little);
  };
  const filter = rule.filter ? compileFilter(rule.filter, patternIndex, patterns, fieldIndex) : undefined;
  const sender = extractor(rule.sender);
  const seq = extractor(rule.seq);
  const sentAtUs = rule.sentAtUs ? extractor(rule.sentAtUs) : undefined;
  // Top-level keys of ASCII only (their bytes are the key itself, whatever a message's text decodes to), and none
  // that a parsed object would find on its prototype ("constructor").
  const scannable =
    decode === decodeJson &&
    paths.length > 0 &&
    paths.every((path) => /^[\x20-\x7e]+$/.test(path) && !path.includes(".") && !(path in Object.prototype));
  const view = new MessageView(
    decode,
    patterns.length,
    scannable ? { run: compileJsonFieldScan(paths), fields: paths.length } : undefined,
  );
  const missing: BroadcastRead = filter ? "incomplete" : "not-broadcast";

  return (data, out) => {
    view.reset(data);
    if (filter && !filter(view)) return "not-broadcast";
    const from = sender(view);
    const number = seq(view);
    if (from === undefined || number === undefined) return missing;
    const sent = sentAtUs ? sentAtUs(view) : Number.NaN;
    if (sent === undefined) return missing;
    out.sender = from;
    out.seq = number;
    out.sentAtUs = sent;
    return "ok";
  };
}

/** The filter over the shared view: a json rule reads the one decoded value, a regex the one text. */
function compileFilter(
  rule: ReplyRule,
  patternIndex: (source: string) => number,
  patterns: RegExp[],
  fieldIndex: (path: string) => number,
): (view: MessageView) => boolean {
  if ("json" in rule) {
    const path = rule.json.field.split(".");
    const field = fieldIndex(rule.json.field);
    const { equals } = rule.json;
    return equals === undefined
      ? (view) => view.valueAt(path, field) !== undefined
      : (view) => view.valueAt(path, field) === equals;
  }
  if ("regex" in rule) {
    const at = patternIndex(rule.regex);
    return (view) => {
      let found = view.found[at];
      if (found === undefined) found = view.found[at] = patterns[at]!.exec(view.textOf());
      return found !== null;
    };
  }
  const bytes = compileReplyRule(rule);
  return (view) => bytes(view.data);
}
