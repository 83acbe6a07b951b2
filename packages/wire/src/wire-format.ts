import type { MessageTemplate, PlanSpec } from "@throng/protocol/plan";
import { createBodyCodec, createReplyDecoder, type BinaryBodyFormat } from "./codecs";
import { decodeJson, type ReplyDecoder } from "./reply-decoder";

// How one plan's messages look on the wire, built once per shard: which templates are encoded (MessagePack,
// protobuf) before they are sent, and how a reply is decoded for the rules that read fields of it (json-field
// matching, json reply rules and captures).

export interface WireFormat {
  /** The encoder of a msgpack or protobuf template's filled JSON body; undefined for text, json and hex bodies. */
  encoderFor(template: MessageTemplate): ((jsonBody: Buffer) => Buffer) | undefined;
  decodeReply: ReplyDecoder;
}

export const TEXT_WIRE: WireFormat = { encoderFor: () => undefined, decodeReply: decodeJson };

const isBinary = (format: MessageTemplate["format"]): format is BinaryBodyFormat =>
  format === "msgpack" || format === "protobuf";

/** Every template of a scenario: its message, its heartbeat's, its session's sends, its respond answers, movement-sync's update and leave sends. */
function templatesOf(scenario: PlanSpec["scenario"]): MessageTemplate[] {
  const out: MessageTemplate[] = [];
  if ("message" in scenario && scenario.message) out.push(scenario.message);
  if ((scenario.kind === "ping-pong" || scenario.kind === "movement-sync") && scenario.heartbeat?.message)
    out.push(scenario.heartbeat.message);
  for (const rule of ("respond" in scenario ? scenario.respond : undefined) ?? []) out.push(rule.send);
  for (const step of ("session" in scenario ? scenario.session : undefined) ?? [])
    if (step.kind === "send") out.push(step.message);
  if (scenario.kind === "movement-sync") {
    if (scenario.update) out.push(scenario.update);
    for (const step of scenario.leave ?? []) if (step.kind === "send") out.push(step.message);
  }
  return out;
}

/**
 * The plan's wire format. Replies are decoded as protobuf when the plan names `protobuf.replyType` (or sends
 * protobuf bodies: then as the first one's type), as MessagePack when it sends msgpack bodies, else as JSON text.
 * Throws naming the plan field on a .proto that does not parse or a message type it lacks.
 */
export function createWireFormat(plan: Pick<PlanSpec, "scenario" | "protobuf">): WireFormat {
  const templates = templatesOf(plan.scenario);
  const binary = templates.filter((t) => isBinary(t.format));
  if (binary.length === 0 && !plan.protobuf?.replyType) return TEXT_WIRE;
  const encoders = new Map<MessageTemplate, (jsonBody: Buffer) => Buffer>();
  for (const template of binary) {
    const codec = createBodyCodec(template.format as BinaryBodyFormat, {
      ...(plan.protobuf ? { protobuf: plan.protobuf } : {}),
      ...(template.messageType ? { messageType: template.messageType } : {}),
    });
    encoders.set(template, (jsonBody) => codec.encode(jsonBody.toString("utf8")));
  }
  const firstProtobuf = binary.find((t) => t.format === "protobuf");
  const replyFormat: BinaryBodyFormat | undefined =
    plan.protobuf?.replyType || firstProtobuf ? "protobuf" : binary.length ? "msgpack" : undefined;
  const decodeReply = replyFormat
    ? createReplyDecoder(replyFormat, {
        ...(plan.protobuf ? { protobuf: plan.protobuf } : {}),
        ...(firstProtobuf?.messageType ? { messageType: firstProtobuf.messageType } : {}),
      })
    : decodeJson;
  return { encoderFor: (template) => encoders.get(template), decodeReply };
}
