import type { MessageTemplate, ResponseMatch } from "@throng/protocol/plan";
import { decodeJson, type ReplyDecoder } from "./reply-decoder";
import type { WireFormat } from "./wire-format";

/** The values a template's placeholders take for one message. */
export interface MessageFields {
  seq: number;
  sentAtUs: number;
  client: number;
  room?: number;
  x?: number;
  y?: number;
  z?: number;
}

/** A client's variables, captured by its session's expect steps (session.ts) and used as {{vars.NAME}}. */
export type SessionVars = Readonly<Record<string, string | number>>;

/** Builds one message from its fields. */
export type MessageBuilder = (fields: MessageFields) => Buffer;

const PLACEHOLDER = /\{\{(seq|sentAtUs|client|room|x|y|z|pad|len|body|\/body|vars\.[A-Za-z_][A-Za-z0-9_]*)\}\}/g;
type Field = "seq" | "sentAtUs" | "client" | "room" | "x" | "y" | "z";
/** A literal is encoded once, when the template is compiled (or bound to a client's variables). */
type Part = Buffer | { field: Field } | { variable: string } | { mark: "pad" | "len" | "body" | "/body" };

/** A template parsed once per scenario; `bind` makes the builder, once per client when it uses variables. */
export interface PreparedTemplate {
  /** Whether the body uses {{vars.NAME}}: then each client binds its own variables. */
  readonly usesVars: boolean;
  /** The builder with `vars` written in as literals, so a message costs no lookups; throws on a variable not in `vars`. */
  bind(vars?: SessionVars): MessageBuilder;
}

function parse(template: MessageTemplate): Part[] {
  const hex = template.format === "hex";
  const literal = (text: string): Buffer => {
    if (hex && !/^([0-9a-fA-F]{2}|\s)*$/.test(text)) throw new Error(`hex template: "${text}" is not hex bytes`);
    return hex ? Buffer.from(text.replace(/\s/g, ""), "hex") : Buffer.from(text);
  };
  const out: Part[] = [];
  let at = 0;
  for (const match of template.body.matchAll(PLACEHOLDER)) {
    if (match.index > at) out.push(literal(template.body.slice(at, match.index)));
    const name = match[1]!;
    if (name.startsWith("vars.")) out.push({ variable: name.slice(5) });
    else if (name === "pad" || name === "len" || name === "body" || name === "/body") out.push({ mark: name });
    else out.push({ field: name as Field });
    at = match.index + match[0].length;
  }
  if (at < template.body.length) out.push(literal(template.body.slice(at)));
  const marks = (mark: string) => out.filter((part) => "mark" in part && part.mark === mark).length;
  const opens = marks("body");
  if (opens > 1 || marks("/body") !== opens)
    throw new Error("template: give at most one {{body}}…{{/body}} section, closed once");
  if (
    opens === 1 &&
    out.findIndex((part) => "mark" in part && part.mark === "/body") <
      out.findIndex((part) => "mark" in part && part.mark === "body")
  ) {
    throw new Error("template: {{/body}} comes before {{body}}");
  }
  if (marks("len") > 0 && opens === 0)
    throw new Error("template: {{len}} counts a {{body}}…{{/body}} section; mark the bytes it counts");
  return out;
}

/**
 * Parses a template once; throws on a bad one (hex that is not hex, an unclosed {{body}}, {{len}} with no section).
 * A msgpack or protobuf body is filled as JSON text and then encoded by the plan's wire format.
 */
export function prepareTemplate(template: MessageTemplate, wire?: WireFormat): PreparedTemplate {
  const parts = parse(template);
  const hex = template.format === "hex";
  const encode = wire?.encoderFor(template);
  return {
    usesVars: parts.some((part) => "variable" in part),
    bind(vars = {}) {
      const bound: Part[] = [];
      for (const part of parts) {
        const value = "variable" in part ? vars[part.variable] : undefined;
        if ("variable" in part && value === undefined)
          throw new Error(`template: {{vars.${part.variable}}} has no value (no session step captured it)`);
        const piece = value === undefined ? part : variableBytes(value, hex);
        // Adjacent literals merge, so a bound template is as cheap per message as one without variables.
        const last = bound[bound.length - 1];
        if (Buffer.isBuffer(piece) && Buffer.isBuffer(last)) bound[bound.length - 1] = Buffer.concat([last, piece]);
        else bound.push(piece);
      }
      const build = builder(bound, template);
      return encode ? (fields) => encode(build(fields)) : build;
    },
  };
}

/** Turns a template into a function that builds one message (a Buffer) from its fields; throws on a bad template. */
export function compileTemplate(template: MessageTemplate, vars?: SessionVars, wire?: WireFormat): MessageBuilder {
  return prepareTemplate(template, wire).bind(vars);
}

/** A variable as bytes: text as UTF-8; in hex bodies, hex digits as the bytes they spell and a number as a binary integer. */
function variableBytes(value: string | number, hex: boolean): Buffer {
  if (!hex) return Buffer.from(String(value));
  if (typeof value === "string")
    return /^([0-9a-fA-F]{2})*$/.test(value) ? Buffer.from(value, "hex") : Buffer.from(value);
  if (value >= -2_147_483_648 && value <= 0xffff_ffff) {
    const out = Buffer.alloc(4);
    if (value < 0) out.writeInt32BE(value);
    else out.writeUInt32BE(value);
    return out;
  }
  const out = Buffer.alloc(8);
  out.writeBigInt64BE(BigInt(Math.round(value)));
  return out;
}

function builder(parts: Part[], template: MessageTemplate): MessageBuilder {
  const hex = template.format === "hex";
  const size = template.sizeBytes;
  const hasPad = parts.some((part) => "mark" in part && part.mark === "pad");
  const fill = hex ? 0 : template.format === "json" && !hasPad ? 0x20 : 0x78; // trailing spaces keep JSON valid
  return (fields) => {
    const chunks: Buffer[] = [];
    const at = { pad: -1, len: -1, body: -1, "/body": -1 };
    for (const part of parts) {
      if (Buffer.isBuffer(part)) chunks.push(part);
      else if ("field" in part)
        chunks.push(hex ? binaryField(part.field, fields) : Buffer.from(String(textField(part.field, fields))));
      else if ("mark" in part) at[part.mark] = chunks.push(Buffer.alloc(0)) - 1;
    }
    const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
    if (at.len < 0) return finish(chunks, at.pad, size !== undefined ? Math.max(0, size - length) : 0, fill);
    return withLength(chunks, at, length, size, hex, fill);
  };
}

/**
 * Writes {{len}}, the byte length of the {{body}} section. With `sizeBytes` the padding depends on the length's own
 * digits, and with {{pad}} inside the section the length on the padding: a few rounds settle both.
 */
function withLength(
  chunks: Buffer[],
  at: { pad: number; len: number; body: number; "/body": number },
  length: number,
  size: number | undefined,
  hex: boolean,
  fill: number,
): Buffer {
  let section = 0;
  for (let i = at.body; i < at["/body"]; i += 1) section += chunks[i]!.length;
  const padInSection = at.pad > at.body && at.pad < at["/body"];
  const width = (bytes: number) => (hex ? 4 : String(bytes).length);
  let lengthBytes = width(section);
  let padding = 0;
  for (let round = 0; round < 4; round += 1) {
    padding = size !== undefined ? Math.max(0, size - length - lengthBytes) : 0;
    const needed = width(section + (padInSection ? padding : 0));
    if (needed === lengthBytes) break;
    lengthBytes = Math.max(needed, lengthBytes); // never shrinks: 99 ↔ 100 settles on the wider number
  }
  const counted = section + (padInSection ? padding : 0);
  if (hex) {
    const field = Buffer.alloc(4);
    field.writeUInt32BE(counted);
    chunks[at.len] = field;
  } else chunks[at.len] = Buffer.from(String(counted));
  return finish(chunks, at.pad, padding, fill);
}

function textField(name: Field, fields: MessageFields): number {
  const value = fields[name];
  return value === undefined
    ? 0
    : name === "x" || name === "y" || name === "z"
      ? Math.round(value * 100) / 100
      : Math.round(value);
}

function binaryField(name: Field, fields: MessageFields): Buffer {
  const value = textField(name, fields);
  if (name === "sentAtUs") {
    const out = Buffer.alloc(8);
    out.writeBigUInt64BE(BigInt(Math.max(0, value)));
    return out;
  }
  const out = Buffer.alloc(4);
  out.writeInt32BE(Math.max(-2_147_483_648, Math.min(2_147_483_647, value)));
  return out;
}

/** Puts `padding` fill bytes at {{pad}} (or at the end) and joins the message. */
function finish(chunks: Buffer[], padAt: number, padding: number, fill: number): Buffer {
  if (padding > 0) {
    const filler = Buffer.alloc(padding, fill);
    if (padAt >= 0) chunks[padAt] = filler;
    else chunks.push(filler);
  }
  return Buffer.concat(chunks);
}

/** Reads the sequence number a response answers; undefined when it carries none. "order" has no reader. */
export type SeqReader = (data: Buffer) => number | undefined;

/** The reader for a plan's match rule, or undefined for in-order matching. */
export function createSeqReader(match: ResponseMatch, decode: ReplyDecoder = decodeJson): SeqReader | undefined {
  switch (match.by) {
    case "order":
      return undefined;
    case "json-field": {
      const path = match.field.split(".");
      return (data) => {
        let value = decode(data);
        for (const key of path)
          value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
        return typeof value === "number"
          ? value
          : typeof value === "string" && /^\d+$/.test(value)
            ? Number(value)
            : undefined;
      };
    }
    case "regex": {
      const pattern = new RegExp(match.pattern);
      return (data) => {
        const found = pattern.exec(data.toString("utf8"))?.[1];
        return found !== undefined && /^\d+$/.test(found) ? Number(found) : undefined;
      };
    }
    case "byte-offset": {
      const { offset } = match;
      const width = match.bytes ?? 4;
      const little = match.byteOrder === "little";
      return (data) => {
        if (data.length < offset + width) return undefined;
        if (width === 2) return little ? data.readUInt16LE(offset) : data.readUInt16BE(offset);
        return little ? data.readUInt32LE(offset) : data.readUInt32BE(offset);
      };
    }
  }
}
