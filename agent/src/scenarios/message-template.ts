import type { MessageTemplate, ResponseMatch } from "@throng/protocol/plan";

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

const PLACEHOLDER = /\{\{(seq|sentAtUs|client|room|x|y|z|pad)\}\}/g;
type Part = string | { name: string };

function parts(body: string): Part[] {
  const out: Part[] = [];
  let at = 0;
  for (const match of body.matchAll(PLACEHOLDER)) {
    if (match.index > at) out.push(body.slice(at, match.index));
    out.push({ name: match[1]! });
    at = match.index + match[0].length;
  }
  if (at < body.length) out.push(body.slice(at));
  return out;
}

/** Turns a template into a function that builds one message (a Buffer) from its fields; throws on a bad template. */
export function compileTemplate(template: MessageTemplate): (fields: MessageFields) => Buffer {
  const format = template.format ?? "text";
  const pieces = parts(template.body);
  const size = template.sizeBytes;
  const hasPad = pieces.some((piece) => typeof piece === "object" && piece.name === "pad");
  if (format === "hex") {
    for (const piece of pieces) {
      if (typeof piece === "string" && !/^([0-9a-fA-F]{2}|\s)*$/.test(piece)) throw new Error(`hex template: "${piece}" is not hex bytes`);
    }
    return (fields) => {
      const chunks: Buffer[] = [];
      let padAt = -1;
      for (const piece of pieces) {
        if (typeof piece === "string") chunks.push(Buffer.from(piece.replace(/\s/g, ""), "hex"));
        else if (piece.name === "pad") padAt = chunks.push(Buffer.alloc(0)) - 1;
        else chunks.push(binaryField(piece.name, fields));
      }
      return pad(chunks, padAt, size, 0);
    };
  }
  const padChar = format === "json" && !hasPad ? 0x20 : 0x78; // trailing spaces keep JSON valid
  return (fields) => {
    const chunks: Buffer[] = [];
    let padAt = -1;
    for (const piece of pieces) {
      if (typeof piece === "string") chunks.push(Buffer.from(piece));
      else if (piece.name === "pad") padAt = chunks.push(Buffer.alloc(0)) - 1;
      else chunks.push(Buffer.from(String(textField(piece.name, fields))));
    }
    return pad(chunks, padAt, size, padChar);
  };
}

function textField(name: string, fields: MessageFields): number {
  const value = (fields as unknown as Record<string, number | undefined>)[name];
  return value === undefined ? 0 : name === "x" || name === "y" || name === "z" ? Math.round(value * 100) / 100 : Math.round(value);
}

function binaryField(name: string, fields: MessageFields): Buffer {
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

function pad(chunks: Buffer[], padAt: number, size: number | undefined, fill: number): Buffer {
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  if (size !== undefined && size > length) {
    const filler = Buffer.alloc(size - length, fill);
    if (padAt >= 0) chunks[padAt] = filler;
    else chunks.push(filler);
  }
  return Buffer.concat(chunks);
}

/** Reads the sequence number a response answers; undefined when it carries none. "order" has no reader. */
export type SeqReader = (data: Buffer) => number | undefined;

/** The reader for a plan's match rule, or undefined for in-order matching. */
export function createSeqReader(match: ResponseMatch): SeqReader | undefined {
  switch (match.by) {
    case "order":
      return undefined;
    case "json-field": {
      const path = match.field.split(".");
      return (data) => {
        let value: unknown;
        try {
          value = JSON.parse(data.toString("utf8"));
        } catch {
          return undefined;
        }
        for (const key of path) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined;
        return typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : undefined;
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
