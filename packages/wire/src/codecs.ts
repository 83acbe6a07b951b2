import { Decoder, Encoder } from "@msgpack/msgpack";
import { SECRET_PLACEHOLDER } from "@throng/protocol/plan-secrets";
import type { PlanSpec } from "@throng/protocol/plan";
import type protobuf from "protobufjs";
import { compileTemplate, type MessageFields, type SessionVars } from "./message-template";
import { findMessageType, jsonToMessage, parseProto } from "./protobuf-schema";

// Message bodies in a server's own binary protocol: the plan writes each body as JSON (placeholders filled as
// for "json" bodies) and the wire carries it as MessagePack or as an encoded protobuf message. Replies are
// decoded the same way into plain objects, so reply matching can read their fields.

/** The body formats that are encoded before they are sent. */
export type BinaryBodyFormat = "msgpack" | "protobuf";

export interface CodecOptions {
  /** The plan's `protobuf` block: the .proto text, and the message type replies are decoded as. */
  protobuf?: { proto: string; replyType?: string };
  /** format "protobuf": the template's message type, e.g. "game.Move". */
  messageType?: string;
}

/** Turns a filled JSON body into wire bytes, and wire bytes back into a plain object. */
export interface BodyCodec {
  /** The wire bytes of one body (JSON text with its placeholders filled); throws naming a field that does not fit. */
  encode(jsonText: string): Buffer;
  /** A plain object; throws on bytes that do not decode (createReplyDecoder's decoder does not). */
  decode(bytes: Buffer): unknown;
}

/**
 * How decoded protobuf messages read: 64-bit integers as numbers (exact up to 2^53), enums by name, bytes as
 * base64, and fields the sender left at their default present with it (0, "", []), so `seq: 0` is still a seq.
 */
const TO_OBJECT: protobuf.IConversionOptions = {
  longs: Number,
  enums: String,
  bytes: String,
  defaults: true,
  arrays: true,
  objects: true,
};

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

function parseBody(jsonText: string): unknown {
  try {
    return JSON.parse(jsonText);
  } catch (error) {
    throw new Error(
      `body is not JSON once its placeholders are filled (${(error as Error).message}): msgpack and protobuf bodies are written as JSON`,
    );
  }
}

function protobufRoot(options: CodecOptions): protobuf.Root {
  if (!options.protobuf?.proto)
    throw new Error("protobuf.proto: a protobuf body needs the .proto text that defines its message type");
  return parseProto(options.protobuf.proto);
}

function protobufCodec(type: protobuf.Type): BodyCodec {
  return {
    encode: (jsonText) => asBuffer(type.encode(jsonToMessage(type, parseBody(jsonText))).finish()),
    decode: (bytes) => type.toObject(type.decode(bytes), TO_OBJECT),
  };
}

function msgpackCodec(): BodyCodec {
  const encoder = new Encoder();
  const decoder = new Decoder();
  return {
    // encode() returns a copy of its working buffer, so each message owns its bytes.
    encode: (jsonText) => asBuffer(encoder.encode(parseBody(jsonText))),
    decode: (bytes) => decoder.decode(bytes),
  };
}

/**
 * The codec of one message template, built once (a .proto is parsed here, never per message). Throws an Error
 * naming the plan field on a .proto that does not parse or a message type it does not define.
 */
export function createBodyCodec(format: BinaryBodyFormat, options: CodecOptions = {}): BodyCodec {
  if (format === "msgpack") return msgpackCodec();
  if (!options.messageType) throw new Error('messageType: a protobuf body names its message type, e.g. "game.Move"');
  return protobufCodec(findMessageType(protobufRoot(options), options.messageType, "messageType"));
}

/**
 * Decodes replies for matching: MessagePack, or protobuf as the plan's `protobuf.replyType` (else the request's
 * `messageType`). The returned function gives undefined for bytes that do not decode, and never throws.
 */
export function createReplyDecoder(format: BinaryBodyFormat, options: CodecOptions = {}): (bytes: Buffer) => unknown {
  let codec: BodyCodec;
  if (format === "msgpack") codec = msgpackCodec();
  else {
    const replyType = options.protobuf?.replyType ?? options.messageType;
    const field = options.protobuf?.replyType ? "protobuf.replyType" : "messageType";
    if (!replyType)
      throw new Error('protobuf.replyType: name the message type replies are decoded as, e.g. "game.Ack"');
    codec = protobufCodec(findMessageType(protobufRoot(options), replyType, field));
  }
  return (bytes) => {
    try {
      return codec.decode(bytes);
    } catch {
      return undefined;
    }
  };
}

/** The value every placeholder takes when a template is checked before the run. */
const SAMPLE_FIELDS: MessageFields = { seq: 1, sentAtUs: 1, client: 1, room: 1, x: 1, y: 1, z: 1 };
/** And every {{vars.NAME}} a session captures (the schema already refused a variable no step captures). */
const SAMPLE_VARS: SessionVars = new Proxy({}, { get: (_, name) => (typeof name === "string" ? 1 : undefined) });

/**
 * Checks a plan's msgpack and protobuf bodies when it is loaded, before any load: the .proto parses, every
 * named message type exists, and each body (its placeholders filled with 1) encodes. The plan schema cannot
 * (it is zod only), so a bad .proto would otherwise fail mid-run. Throws an Error naming the plan field.
 */
export function checkPlanCodecs(plan: Pick<PlanSpec, "scenario" | "protobuf">): void {
  const root = plan.protobuf ? parseProto(plan.protobuf.proto) : undefined;
  if (root && plan.protobuf?.replyType) findMessageType(root, plan.protobuf.replyType, "protobuf.replyType");
  for (const { path, template } of binaryTemplates(plan, [])) {
    const format = template.format as BinaryBodyFormat;
    try {
      const codec =
        format === "protobuf" && root && template.messageType
          ? protobufCodec(findMessageType(root, template.messageType, "messageType"))
          : createBodyCodec(format, { protobuf: plan.protobuf, messageType: template.messageType });
      // A secret's value is not known when the plan is read (the agent writes it in per shard): 1 stands for it too.
      codec.encode(
        compileTemplate(
          { format: "json", body: template.body.replace(SECRET_PLACEHOLDER, "1") },
          SAMPLE_VARS,
        )(SAMPLE_FIELDS).toString(),
      );
    } catch (error) {
      const message = (error as Error).message;
      throw new Error(message.startsWith("protobuf.") ? message : `${path.join(".")}.${message}`);
    }
  }
}

interface Template {
  format?: string;
  body: string;
  messageType?: string;
}

/** Every msgpack and protobuf template in a plan, with its path (`scenario.message`), wherever a template may be. */
function binaryTemplates(value: unknown, path: string[]): { path: string[]; template: Template }[] {
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((inner, index) => binaryTemplates(inner, [...path, String(index)]));
  const template = value as Template;
  if (typeof template.body === "string")
    return template.format === "msgpack" || template.format === "protobuf" ? [{ path, template }] : [];
  return Object.entries(value).flatMap(([key, inner]) => binaryTemplates(inner, [...path, key]));
}
