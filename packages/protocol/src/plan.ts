import { z } from "zod";
import { JS_SPACE } from "./js-space";
import { KCP_MODE_NAMES } from "./kcp-modes";
import { PlanExport } from "./metrics-export";
import { ServerWatchPlan } from "./server-watch";
import { checkReconnectStorm, ReconnectPolicy, ReconnectStormShape } from "./reconnect";
import { checkTargetVars } from "./session";
import { checkSecretPlaceholders } from "./plan-secrets";
import { checkNetworkCohorts, CohortName, NetworkCohorts } from "./network";
import { BroadcastRule, checkSessionVars, ReplyCheck, respondRulesOf, sessionStepsOf } from "./session";
import { SCRIPT_METRIC_NAME, SCRIPT_SLO_ID } from "./script-metrics";
import { BUILTIN_SLO_METRICS, sloMetricProblem } from "./slo-metrics";

// New plan fields are optional (never `.default()`), so every plan saved with an earlier schema stays valid
// and the inferred PlanSpec type does not gain required fields; the agent applies the defaults named here.

const port = z.number().int().min(1, "must be a port from 1 to 65535").max(65_535, "must be a port from 1 to 65535");
const host = z.string().trim().min(1, "give a host name or IP address, e.g. 127.0.0.1");

/** Local IPs the agent spreads its connections over (e.g. 127.0.0.2, 127.0.0.3) to pass one address's ephemeral ports. */
const sourceAddresses = z
  .array(z.string().trim().min(1))
  .min(1, "list at least one address or leave it out")
  .max(256)
  .optional();

/** A WebSocket server under test. Load goes only where the plan points. */
export const WebSocketTarget = z.object({
  protocol: z.literal("websocket"),
  url: z
    .string()
    .trim()
    .refine((value) => /^wss?:\/\/[^\s/]+/.test(value), {
      message: "must be a ws:// or wss:// URL, e.g. ws://127.0.0.1:7070/ws",
    })
    // The refinement for the OpenAPI document, where the input is not yet trimmed.
    .meta({ pattern: `^[${JS_SPACE}]*wss?://[^/${JS_SPACE}]` }),
  /** Extra HTTP headers on the upgrade request (e.g. an auth token). */
  headers: z.record(z.string().min(1), z.string()).optional(),
  /** Sec-WebSocket-Protocol values offered in the handshake. */
  subprotocols: z.array(z.string().min(1)).max(16).optional(),
  /** Frame type of every message the clients send (default "text"). */
  frames: z.enum(["text", "binary"]).optional(),
  /** wss:// only: how the agent checks the server's certificate. Default: verified against the system's CAs. */
  tls: z
    .object({
      /** A PEM file on the agent's host whose CA certificates are trusted too (e.g. a test server's self-signed one). */
      caFile: z.string().trim().min(1, "give the path of a PEM file on the agent's host").optional(),
      /** Accept any certificate without checking it: only for self-signed test servers, never in production. */
      insecureSkipVerify: z.boolean().optional(),
    })
    .optional(),
  /**
   * WebSocket client code: "lean" (default for ws://; Throng's own client on a plain socket, the cheapest per
   * message) or "ws" (the ws library; always used for wss://).
   */
  client: z.enum(["lean", "ws"]).optional(),
  sourceAddresses,
});
export type WebSocketTarget = z.infer<typeof WebSocketTarget>;

/** Each message is preceded by its length: 2 or 4 bytes, in either byte order (a shorthand for a length-field framing at offset 0). */
export const LengthPrefixFraming = z.object({
  kind: z.literal("length-prefix"),
  /** Size of the length header (2 or 4). */
  headerBytes: z.union([z.literal(2), z.literal(4)], { message: "must be 2 or 4" }),
  /** Byte order of the header (default "big"). */
  byteOrder: z.enum(["big", "little"]).optional(),
  /** Whether the length counts the header itself (default false). */
  lengthIncludesHeader: z.boolean().optional(),
});
export type LengthPrefixFraming = z.infer<typeof LengthPrefixFraming>;

/** Each message ends with a delimiter: "\n", "\r\n" or any byte string. */
export const DelimiterFraming = z.object({
  kind: z.literal("delimiter"),
  /** The delimiter as text (YAML/JSON escapes such as "\r\n" work); use delimiterHex for raw bytes. */
  delimiter: z.string().min(1, "must not be empty").max(16).optional(),
  /** The delimiter as hex bytes, e.g. "00" or "0d0a"; wins over `delimiter`. */
  delimiterHex: z
    .string()
    .regex(/^([0-9a-fA-F]{2})+$/, "must be hex bytes, e.g. 0d0a")
    .max(32)
    .optional(),
});
export type DelimiterFraming = z.infer<typeof DelimiterFraming>;

/** The largest frame a length-field framing may allow (maxFrameBytes): each connection buffers one frame. */
export const MAX_LENGTH_FIELD_FRAME_BYTES = 256 * 1024 * 1024;

/**
 * A length field somewhere in each frame's header, as Netty's LengthFieldBasedFrameDecoder reads it: a frame is
 * lengthFieldOffset + the field's own bytes + its value + lengthAdjustment bytes long. MQTT is offset 1, "varint";
 * protobuf's writeDelimited is "varint" with initialBytesToStrip "header". The agent prepends the field to what it
 * sends only at offset 0; at a larger offset each message goes out as the scenario gives it (it writes its header).
 */
export const LengthFieldFraming = z.object({
  kind: z.literal("length-field"),
  /** Bytes before the length field (a type byte, flags, …); default 0. */
  lengthFieldOffset: z
    .number()
    .int("must be a whole number of bytes")
    .min(0, "must be 0 or more")
    .max(64, "must be at most 64 bytes")
    .optional(),
  /** Size of the length field: 1, 2, 3, 4 or 8 bytes, or "varint" (base-128, low group first: MQTT, protobuf). */
  lengthFieldBytes: z.union(
    [z.literal(1), z.literal(2), z.literal(3), z.literal(4), z.literal(8), z.literal("varint")],
    {
      message: 'must be 1, 2, 3, 4, 8 or "varint"',
    },
  ),
  /** Byte order of a fixed-size field (default "big"); a varint has its own and ignores this. */
  byteOrder: z.enum(["big", "little"], { message: 'must be "big" or "little"' }).optional(),
  /** Added to the field's value to get the bytes that follow the field (negative when it counts the header); default 0. */
  lengthAdjustment: z
    .number()
    .int("must be a whole number of bytes")
    .min(-MAX_LENGTH_FIELD_FRAME_BYTES, "must be at least -268435456")
    .max(MAX_LENGTH_FIELD_FRAME_BYTES, "must be at most 268435456")
    .optional(),
  /** Bytes cut from the front of each frame before the scenario sees it (default 0); "header": the offset and the field, whatever the varint's size. */
  initialBytesToStrip: z
    .union(
      [
        z
          .number()
          .int("must be a whole number of bytes")
          .min(0, 'must be 0 or more, or "header"')
          .max(MAX_LENGTH_FIELD_FRAME_BYTES),
        z.literal("header"),
      ],
      {
        message: 'must be a whole number of bytes from 0, or "header" (the offset and the length field)',
      },
    )
    .optional(),
  /** The longest frame accepted, header included (default 1 MiB); a longer one closes the connection as a protocol error. */
  maxFrameBytes: z
    .number()
    .int("must be a whole number of bytes")
    .min(1, "must be at least 1 byte")
    .max(MAX_LENGTH_FIELD_FRAME_BYTES, "must be at most 268435456 (256 MiB)")
    .optional(),
});
export type LengthFieldFraming = z.infer<typeof LengthFieldFraming>;

/** How messages are cut out of a TCP byte stream. */
export const TcpFraming = z.discriminatedUnion("kind", [LengthPrefixFraming, DelimiterFraming, LengthFieldFraming]);
export type TcpFraming = z.infer<typeof TcpFraming>;

/** A TCP server under test, with the framing its messages use. */
export const TcpTarget = z.object({
  protocol: z.literal("tcp"),
  host,
  port,
  /** How messages are cut out of the stream. Every scenario needs one but a script, which reads the socket itself (PlanSpec checks). */
  framing: TcpFraming.optional(),
  sourceAddresses,
});
export type TcpTarget = z.infer<typeof TcpTarget>;

/** A UDP server under test: one datagram per message; loss, duplicates and reordering found by sequence number. */
export const UdpTarget = z.object({
  protocol: z.literal("udp"),
  host,
  port,
  sourceAddresses,
});
export type UdpTarget = z.infer<typeof UdpTarget>;

const kcpWindow = z
  .number()
  .int("must be a whole number of segments")
  .min(1, "must be at least 1 segment")
  .max(65_535, "must be at most 65535 segments (the header's wnd is 16 bits)");

/**
 * A KCP server under test (reliable UDP, as xtaci/kcp-go and skywind3000/kcp speak it: plain segments, no FEC or
 * encryption layer). Each client has its own UDP socket and conversation. Message mode (the default): one message
 * the scenario sends is one KCP message, fragmented and reassembled by KCP. Stream mode: messages are framed in
 * the byte stream by `framing`, as over TCP. The tuning is kcp-go's SetNoDelay(nodelay, interval, resend, nc):
 * a `mode` preset, each of whose four values a field of the same name may replace (kcp-modes.ts).
 */
export const KcpTarget = z
  .object({
    protocol: z.literal("kcp"),
    host,
    port,
    /** kcptun's presets of (nodelay, interval, resend, nc): normal 0,40,2,1; fast 0,30,2,1 (default); fast2 1,20,2,1; fast3 1,10,2,1. */
    mode: z.enum(KCP_MODE_NAMES, { message: "must be normal, fast, fast2 or fast3" }).optional(),
    /** Replaces the mode's nodelay: true floors the RTO at 30 ms (else 100) and each expiry adds half the RTO, not all of it. */
    nodelay: z.boolean().optional(),
    /** Replaces the mode's interval: how often pending ACKs and window probes go out (10 to 5000 ms, as kcp-go clamps it). */
    intervalMs: z
      .number()
      .int("must be a whole number of ms")
      .min(10, "must be at least 10 ms")
      .max(5_000, "must be at most 5000 ms")
      .optional(),
    /** Replaces the mode's resend: a segment goes again at once after this many later ones were acknowledged; 0 turns fast retransmit off. */
    resend: z
      .number()
      .int("must be a whole number")
      .min(0, "must be 0 (off) or more")
      .max(100, "must be at most 100")
      .optional(),
    /** Replaces the mode's nc: true sends without a congestion window (only the send window and the server's receive window limit). */
    nc: z.boolean().optional(),
    /** The largest datagram, KCP's 24-byte header included (default 1400, as kcp-go; at most 1472, kcp-go's own limit: 1500 less IP and UDP headers). */
    mtu: z
      .number()
      .int("must be a whole number of bytes")
      .min(50, "must be at least 50 bytes")
      .max(1_472, "must be at most 1472 bytes (kcp-go's limit: a 1500-byte packet less its IP and UDP headers)")
      .optional(),
    /** Segments a client may have unacknowledged (default 32, kcp-go's sndwnd). */
    sendWindow: kcpWindow.optional(),
    /** Segments a client takes in ahead of the next in order, and advertises to the server (default 32, kcp-go's rcvwnd). */
    receiveWindow: kcpWindow.optional(),
    /** Send each ACK as its segment arrives instead of at the next interval (kcp-go's SetACKNoDelay; default false). */
    ackNoDelay: z.boolean().optional(),
    /** Stream mode (kcp-go's SetStreamMode): a byte stream, cut into messages by `framing` (default false: message mode). */
    stream: z.boolean().optional(),
    /** Stream mode only: how messages are cut out of the byte stream, as for TCP. */
    framing: TcpFraming.optional(),
    /** One conversation id for every client (0 to 4294967295); left out, each connection draws its own, as kcp-go's Dial does. */
    conv: z
      .number()
      .int("must be a whole number")
      .min(0, "must be 0 to 4294967295")
      .max(4_294_967_295, "must be 0 to 4294967295 (32 bits)")
      .optional(),
    sourceAddresses,
  })
  .superRefine((target, ctx) => {
    if (target.stream && !target.framing)
      ctx.addIssue({
        code: "custom",
        path: ["framing"],
        message:
          "stream mode cuts messages out of a byte stream: give a framing (length-prefix, delimiter or length-field), or leave stream out for message mode",
      });
    if (!target.stream && target.framing)
      ctx.addIssue({
        code: "custom",
        path: ["framing"],
        message:
          "a framing is for stream mode: set stream: true, or leave framing out (in message mode one KCP message is one message)",
      });
  });
export type KcpTarget = z.infer<typeof KcpTarget>;

/** Where the load goes. */
export const Target = z.discriminatedUnion("protocol", [WebSocketTarget, TcpTarget, UdpTarget, KcpTarget]);
export type Target = z.infer<typeof Target>;

/** A protobuf message type's full name: "game.Move", or "Move" in a .proto without a package. */
const protobufTypeName = z
  .string()
  .trim()
  .regex(/^\.?[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/, 'must be a message type\'s full name, e.g. "game.Move"')
  .max(512);

/**
 * What a client sends. Placeholders: {{seq}} {{sentAtUs}} {{client}} {{room}} {{x}} {{y}} {{z}} and {{pad}}
 * (filled so the message is `sizeBytes` long). In "hex" bodies every number is a big-endian binary integer
 * ({{sentAtUs}} 8 bytes, the others 4) and {{pad}} zero bytes. {{vars.NAME}} is a variable a session step captured
 * (session.ts). {{len}} is the byte length of the message's {{body}}…{{/body}} section, e.g.
 * "PUB room.1 {{len}}\r\n{{body}}{\"x\":{{x}}}{{/body}}\r\n" (a 4-byte integer in hex bodies).
 */
export const MessageTemplate = z.object({
  /**
   * How `body` is read (default "text"). "json" is text that must stay valid JSON once filled. "msgpack" and
   * "protobuf" bodies are written as JSON and sent encoded: as MessagePack, or as the protobuf `messageType`.
   */
  format: z.enum(["text", "json", "hex", "msgpack", "protobuf"]).optional(),
  /** format "protobuf": the message type the body is, as named in the plan's `protobuf.proto` (e.g. "game.Move"). */
  messageType: protobufTypeName.optional(),
  body: z.string().min(1, "give the message body").max(65_536),
  /** Pad with {{pad}} (or at the end) to this many bytes. */
  sizeBytes: z.number().int().min(1).max(65_536).optional(),
});
export type MessageTemplate = z.infer<typeof MessageTemplate>;

/** Steps each client runs after it connects and before its traffic: send, expect a reply, wait (session.ts). */
export const SessionSteps = sessionStepsOf(MessageTemplate);
export type SessionSteps = z.infer<typeof SessionSteps>;
export type SessionStep = SessionSteps[number];

/** Automatic answers to the server's own messages (its keep-alive pings), on any scenario: `{ when: ReplyRule, send }` (session.ts). */
export const RespondRules = respondRulesOf(MessageTemplate);
export type RespondRules = z.infer<typeof RespondRules>;

/** A message each client sends on its own timer once its session is done, not answered and not measured. */
const Heartbeat = z.object({ intervalMs: z.number().int().min(100).max(600_000), message: MessageTemplate.optional() });

/** How a response is matched to its request (default: the "seq" JSON field for JSON messages, else in order). */
export const ResponseMatch = z.discriminatedUnion("by", [
  /** A numeric field of a JSON response, dotted path allowed ("data.seq"). */
  z.object({ by: z.literal("json-field"), field: z.string().min(1) }),
  /** The first capture group of a regular expression over the response text. */
  z.object({ by: z.literal("regex"), pattern: z.string().min(1).max(500) }),
  /** An unsigned integer at a byte offset of the response. */
  z.object({
    by: z.literal("byte-offset"),
    offset: z.number().int().min(0).max(65_535),
    /** Width of the integer (default 4). */
    bytes: z.union([z.literal(2), z.literal(4)]).optional(),
    /** Byte order (default "big"). */
    byteOrder: z.enum(["big", "little"]).optional(),
  }),
  /** Responses answer requests first in, first out. */
  z.object({ by: z.literal("order") }),
]);
export type ResponseMatch = z.infer<typeof ResponseMatch>;

/** Random think time between a response and the next request, uniform in [minMs, maxMs]. */
const ThinkTime = z
  .object({ minMs: z.number().int().min(0), maxMs: z.number().int().min(1).max(600_000) })
  .refine((value) => value.minMs <= value.maxMs, { message: "minMs must not exceed maxMs" });

/** Each client sends a ping every `intervalMs` and waits for the pong that answers it. */
export const PingPongScenario = z
  .object({
    kind: z.literal("ping-pong"),
    intervalMs: z.number().int().min(10, "must be at least 10 ms").max(600_000, "must be at most 600000 ms"),
    /** Bytes per built-in ping; leave out when `message` gives the ping. */
    messageBytes: z
      .number()
      .int()
      .min(32, "must be at least 32 bytes")
      .max(65_536, "must be at most 65536 bytes")
      .optional(),
    /** Size the target should answer with (the reference target honours it; default: its minimal pong). */
    responseBytes: z.number().int().min(16).max(65_536).optional(),
    /** Instead of the fixed interval: wait a random think time after each pong (a closed model). */
    thinkTime: ThinkTime.optional(),
    /** A heartbeat message on its own timer, not answered and not measured. */
    heartbeat: Heartbeat.optional(),
    /** A custom ping instead of the built-in JSON ping. */
    message: MessageTemplate.optional(),
    /** How pongs are matched to pings (default: JSON field "seq"). */
    match: ResponseMatch.optional(),
    /** A ping unanswered this long counts as a timeout error (default 30000 ms). */
    timeoutMs: z.number().int().min(100).max(600_000).optional(),
    session: SessionSteps.optional(),
    reply: ReplyCheck.optional(),
    /** What a client the server drops does (default: never reconnects). */
    reconnect: ReconnectPolicy.optional(),
    respond: RespondRules.optional(),
  })
  .superRefine((scenario, ctx) => {
    if (scenario.messageBytes === undefined && scenario.message === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["messageBytes"],
        message: "give messageBytes (the built-in ping's size) or a message template",
      });
    }
    checkSessionVars(scenario, [scenario.message?.body, scenario.heartbeat?.message?.body], ctx);
  })
  .meta({ anyOf: [{ required: ["messageBytes"] }, { required: ["message"] }] }); // the first rule, for the OpenAPI document
export type PingPongScenario = z.infer<typeof PingPongScenario>;

/** Every connection sends small messages as fast as the server echoes them, one message per send call. */
export const EchoFloodScenario = z
  .object({
    kind: z.literal("echo-flood"),
    messageBytes: z.number().int().min(1).max(65_536),
    /** Cap on unanswered messages per connection (default 1). */
    maxInFlight: z.number().int().min(1).max(10_000).optional(),
    message: MessageTemplate.optional(),
    /** How echoes are matched (default "order"). */
    match: ResponseMatch.optional(),
    session: SessionSteps.optional(),
    reply: ReplyCheck.optional(),
    /** What a client the server drops does (default: never reconnects). */
    reconnect: ReconnectPolicy.optional(),
    respond: RespondRules.optional(),
  })
  .superRefine((scenario, ctx) => checkSessionVars(scenario, [scenario.message?.body], ctx));
export type EchoFloodScenario = z.infer<typeof EchoFloodScenario>;

/** The longest a movement-sync client's leave steps may wait in all: the run's end waits for them. */
export const MAX_LEAVE_WAIT_MS = 5_000;

/** Rooms of `roomSize` players; each sends position updates the server broadcasts to the rest of the room. */
export const MovementSyncScenario = z
  .object({
    kind: z.literal("movement-sync"),
    roomSize: z.number().int().min(2, "a room needs at least 2 players").max(1_000),
    /** Updates per second per player; leave out to send as fast as possible (one update in flight). */
    updateHz: z.number().min(0.1).max(1_000).optional(),
    /** What a player the server drops does (default: never reconnects). */
    reconnect: ReconnectPolicy.optional(),
    /** Bytes per built-in position update (default 64); not used with `update`. */
    messageBytes: z.number().int().min(32).max(65_536).optional(),
    /** Steps that join the room instead of the built-in join/joined exchange ({{room}} is the player's room). */
    session: SessionSteps.optional(),
    /** The position update instead of the built-in {"type":"move",…} (messageBytes then unused; sizeBytes pads it). */
    update: MessageTemplate.optional(),
    /** How room broadcasts are recognised and read, instead of the reference target's own format. */
    broadcast: BroadcastRule.optional(),
    /** Steps sent as a client stops (ramp-down or the run's end), before its connection closes: send and wait only. */
    leave: SessionSteps.optional(),
    /** A message on its own timer once the player has joined (a keep-alive), not answered and not measured. */
    heartbeat: Heartbeat.optional(),
    respond: RespondRules.optional(),
  })
  .superRefine((scenario, ctx) => {
    let waitedMs = 0;
    scenario.leave?.forEach((step, index) => {
      if (step.kind === "wait") waitedMs += step.ms;
      if (step.kind !== "send" && step.kind !== "wait") {
        ctx.addIssue({
          code: "custom",
          path: ["leave", index, "kind"],
          message: `leave steps are send and wait only, not ${step.kind}: the client is stopping and reads no reply (put it in session)`,
        });
      }
    });
    if (waitedMs > MAX_LEAVE_WAIT_MS)
      ctx.addIssue({
        code: "custom",
        path: ["leave"],
        message: `leave steps wait ${waitedMs} ms in all: at most ${MAX_LEAVE_WAIT_MS} ms, since the run's end waits for them`,
      });
    const leaveBodies = (scenario.leave ?? []).map((step) => (step.kind === "send" ? step.message.body : undefined));
    checkSessionVars(scenario, [scenario.update?.body, scenario.heartbeat?.message?.body, ...leaveBodies], ctx);
  });
export type MovementSyncScenario = z.infer<typeof MovementSyncScenario>;

/** Clients connect at a rate (or all at once) and optionally log in; measures connect and login times. */
export const LoginStormScenario = z
  .object({
    kind: z.literal("login-storm"),
    /** New connections per second across the run; leave out to connect all at once. */
    connectsPerSec: z.number().min(1).max(1_000_000).optional(),
    /** Send a login message and wait for its answer (the reference target answers {"type":"login",...}). */
    login: z.boolean().optional(),
    /** A connect or login slower than this fails with cause "timeout" (default 10000 ms). */
    timeoutMs: z.number().int().min(100).max(120_000).optional(),
    /** Keep connections open until the run ends (default true); false closes each after its login. */
    hold: z.boolean().optional(),
    /** Steps that log in instead of the built-in login; their time from first to last is the login time. */
    session: SessionSteps.optional(),
    /** What a client the server drops does (default: never reconnects). */
    reconnect: ReconnectPolicy.optional(),
    respond: RespondRules.optional(),
  })
  .superRefine((scenario, ctx) => checkSessionVars(scenario, [], ctx));
export type LoginStormScenario = z.infer<typeof LoginStormScenario>;

/** A name a script's metric is shown by (snapshot `script.NAME`, `scriptCounts.NAME`), e.g. "connect-ms". */
export const ScriptMetricName = z
  .string()
  .regex(
    new RegExp(`^${SCRIPT_METRIC_NAME}$`),
    'must be lower-case letters, digits and "-", starting with a letter, at most 41 characters, e.g. "connect-ms"',
  );

/**
 * Each client runs a JS module's client function on the agent (agent/src/scripts/): `path` on the agent's host
 * (standalone `throng-agent run`, relative to the plan file) or `sha256` of a bundle the control plane stores.
 */
export const ScriptScenario = z
  .object({
    kind: z.literal("script"),
    script: z.union(
      [
        z.strictObject({ path: z.string().trim().min(1, "give the script's path").max(4096) }),
        z.strictObject({ sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be a SHA-256: 64 hex digits") }),
      ],
      {
        error: "give { path: file.mjs } (a JS module or bundle on the agent's host) or { sha256: <64 hex digits> }",
      },
    ),
    /** Handed to every client as ctx.parameters. */
    parameters: z
      .record(z.string().min(1).max(100), z.union([z.string().max(4096), z.number(), z.boolean()]))
      .optional(),
    /** Clients per room: ctx.room = floor(client / roomSize), and a room's clients run on one engine (one clock). */
    roomSize: z.number().int().min(1, "a room holds at least 1 client").max(100_000).optional(),
    /** Named histograms (ctx.measure) and counters (ctx.count), present in every second from the first. */
    metrics: z
      .array(z.object({ name: ScriptMetricName, kind: z.enum(["histogram", "counter"]) }))
      .max(32, "at most 32 metrics")
      .optional(),
    /** A ctx.measure() not settled after this long rejects and counts errorsByKind "script-timeout" (default: no limit). */
    timeoutMs: z.number().int().min(1).max(600_000).optional(),
  })
  .superRefine((scenario, ctx) => {
    const names = (scenario.metrics ?? []).map((m) => m.name);
    for (const [i, name] of names.entries())
      if (names.indexOf(name) !== i)
        ctx.addIssue({ code: "custom", path: ["metrics", i, "name"], message: `"${name}" is named twice` });
  });
export type ScriptScenario = z.infer<typeof ScriptScenario>;

/** What each client does. */
export const Scenario = z.discriminatedUnion("kind", [
  PingPongScenario,
  EchoFloodScenario,
  MovementSyncScenario,
  LoginStormScenario,
  ScriptScenario,
]);
export type Scenario = z.infer<typeof Scenario>;

/** Ramp to `clients` over `durationSec`, then move on to the next stage. */
export const LoadStage = z.object({
  clients: z.number().int().min(0).max(1_000_000),
  durationSec: z.number().int().min(1).max(86_400),
});
export type LoadStage = z.infer<typeof LoadStage>;

/** Advanced load shapes; `load.clients` stays the most clients at once and `load.durationSec` the run's length. */
export const LoadShapeKind = z.discriminatedUnion("kind", [
  /** k6-style stages: each ramps linearly from the previous count to its own. */
  z.object({ kind: z.literal("stages"), stages: z.array(LoadStage).min(1, "give at least one stage").max(100) }),
  /** Open model: new clients arrive at a constant rate, whatever the server does. */
  z.object({ kind: z.literal("arrival-rate"), clientsPerSec: z.number().min(0.01).max(100_000) }),
  /**
   * Capacity search, holding each level for `stepDurationSec`. `fixed` (the default): start at `startClients`
   * and add `stepClients` every step up to `load.clients`. `auto`: `coarseSteps` levels from `startClients` to
   * `load.clients` until one breaks an SLO, then `fineSteps` finer increments between the last level that held
   * and the one that broke, until one breaks (capacity-search.ts decides each next level).
   */
  z.object({
    kind: z.literal("step-up"),
    mode: z.enum(["fixed", "auto"]).optional(),
    startClients: z.number().int().min(1),
    stepClients: z.number().int().min(1).optional(),
    stepDurationSec: z.number().int().min(1).max(3_600),
    /** auto: how many levels the coarse phase spreads from startClients to load.clients (default 8). */
    coarseSteps: z.number().int().min(2, "the coarse phase needs at least 2 levels").max(100).optional(),
    /** auto: into how many increments the fine phase splits the gap between the last held and the broken level (default 5). */
    fineSteps: z.number().int().min(2, "the fine phase needs at least 2 increments").max(100).optional(),
    /** The clients the server must hold for the run to pass: the estimate is judged against it (`meetsMinClients`). */
    minClients: z.number().int().min(1, "must be at least 1 client").optional(),
  }),
  /** Every everySec the agent closes dropPercent% of its connected clients; they come back by scenario.reconnect. */
  ReconnectStormShape,
]);
export type LoadShapeKind = z.infer<typeof LoadShapeKind>;

/** How many clients, for how long. */
export const LoadShape = z
  .object({
    clients: z.number().int().min(1, "must be at least 1").max(1_000_000, "must be at most 1000000"),
    durationSec: z.number().int().min(1, "must be at least 1 s").max(86_400, "must be at most 86400 s"),
    rampUpSec: z.number().int().min(0).max(3_600).default(0),
    /** One new client every this many ms (e.g. 50), instead of spreading them over rampUpSec. */
    joinIntervalMs: z.number().min(0.01).max(600_000).optional(),
    /** Stages, arrival rate or step-up; leave out for the simple ramp-and-hold. */
    shape: LoadShapeKind.optional(),
  })
  .superRefine((load, ctx) => {
    const shape = load.shape;
    if (shape?.kind !== "step-up") return;
    const issue = (key: string, message: string) => ctx.addIssue({ code: "custom", path: ["shape", key], message });
    if (shape.minClients !== undefined && shape.minClients > load.clients) {
      issue(
        "minClients",
        `must be at most load.clients (${load.clients}): the search never holds more clients, so it could never show that many held`,
      );
    }
    if (shape.mode === "auto") {
      if (shape.stepClients !== undefined)
        issue("stepClients", "an automatic search chooses its own steps: leave stepClients out, or use mode fixed");
      if (shape.startClients >= load.clients)
        issue(
          "startClients",
          `must be below load.clients (${load.clients}): the search climbs from it to load.clients`,
        );
    } else {
      if (shape.stepClients === undefined) issue("stepClients", "give the clients added per step, or set mode: auto");
      if (shape.coarseSteps !== undefined)
        issue("coarseSteps", "only an automatic search (mode: auto) has coarse steps");
      if (shape.fineSteps !== undefined) issue("fineSteps", "only an automatic search (mode: auto) has fine steps");
    }
  });
export type LoadShape = z.infer<typeof LoadShape>;

/** An SLO over a script's declared metric: "script:NAME-p50" / "-p99" (a histogram), "script:NAME-count" (a counter's total). */
const SCRIPT_SLO_METRIC = new RegExp(`^${SCRIPT_SLO_ID}$`);
export const ScriptSloMetric = z
  .templateLiteral(["script:", z.string()])
  .check(
    z.regex(SCRIPT_SLO_METRIC, 'a script metric reads "script:NAME-p50", "script:NAME-p99" or "script:NAME-count"'),
  )
  .meta({ pattern: SCRIPT_SLO_METRIC.source }); // the template's own pattern (script:anything) is all JSON Schema would show

/** A pass/fail threshold over the whole run (a later issue adds per-step and windowed SLOs); the metrics are slo-metrics.ts's. */
export const Slo = z.object({
  metric: z.union([z.enum(BUILTIN_SLO_METRICS), ScriptSloMetric], {
    error: `must be one of ${BUILTIN_SLO_METRICS.join(", ")}, or "script:NAME-p50", "script:NAME-p99", "script:NAME-count"`,
  }),
  /** The run passes when the measured value is below this (a rate as a fraction: 0.01 is 1 %). */
  below: z.number().min(0),
  /** Judge only this network cohort's clients (a name in plan.network), on its own figures; omitted: the whole run. */
  cohort: CohortName.optional(),
});
export type Slo = z.infer<typeof Slo>;

/** Which agents take the load, and what happens when one is lost mid-run. */
export const AgentSelector = z.object({
  /** At most this many agents (default: every online agent that matches). */
  count: z.number().int().min(1, "must be at least 1").max(10_000).optional(),
  /** Only agents carrying every one of these labels (`region=eu`). */
  labels: z.record(z.string().min(1), z.string()).default({}),
  /** `continue`: the run goes on degraded and the report names the agent; `abort`: the run stops. */
  onLost: z.enum(["continue", "abort"]).default("continue"),
});
export type AgentSelector = z.infer<typeof AgentSelector>;

/** Every message template in `value` (a plan), with its path: `scenario.message`, `scenario.heartbeat.message`, …. */
function messageTemplates(
  value: unknown,
  path: (string | number)[],
): { path: (string | number)[]; template: MessageTemplate }[] {
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((inner, index) => messageTemplates(inner, [...path, index]));
  if (typeof (value as { body?: unknown }).body === "string") return [{ path, template: value as MessageTemplate }];
  return Object.entries(value).flatMap(([key, inner]) => messageTemplates(inner, [...path, key]));
}

/** A plan as the user writes it (browser form, API body, plan file). */
export const PlanSpec = z
  .object({
    name: z.string().trim().min(1, "give the plan a name").max(120, "must be at most 120 characters"),
    target: Target,
    scenario: Scenario,
    load: LoadShape,
    /** Omitted: every online agent, and a lost agent leaves the run going on degraded. */
    agents: AgentSelector.optional(),
    /** Thresholds the run must meet; `throng-agent run` exits 5 when one fails. */
    slos: z.array(Slo).max(20).optional(),
    /** Watch the server under test (its CPU, memory, packets) with the watcher agents on its host. */
    watch: ServerWatchPlan.optional(),
    /** The .proto text protobuf bodies are encoded with, and the type replies are decoded as (the agent parses and checks it). */
    protobuf: z
      .object({ proto: z.string().min(1, "give the .proto text").max(65_536), replyType: protobufTypeName.optional() })
      .optional(),
    /** Stream the runs' per-second series to the org's Prometheus remote write and/or OTLP endpoint (docs/metrics-export.md). */
    export: PlanExport.optional(),
    /** Network conditions per cohort of players (network.ts, docs/networks.md); clients in no cohort get the rig's network. */
    network: NetworkCohorts.optional(),
  })
  .superRefine((plan, ctx) => {
    if (plan.target.protocol === "tcp" && !plan.target.framing && plan.scenario.kind !== "script") {
      ctx.addIssue({
        code: "custom",
        path: ["target", "framing"],
        message:
          "give the framing: how messages are cut out of the TCP stream (only a script scenario, which reads the socket itself, goes without)",
      });
    }
    checkReconnectStorm(plan, ctx);
    checkNetworkCohorts(plan, ctx);
    checkTargetVars(plan, ctx);
    checkSecretPlaceholders(plan, ctx);
    for (const { path, template } of messageTemplates(plan, [])) {
      const issue = (key: string, message: string) => ctx.addIssue({ code: "custom", path: [...path, key], message });
      if (template.format !== "protobuf") {
        if (template.messageType !== undefined)
          issue(
            "messageType",
            "only a protobuf body names a message type: set format: protobuf, or leave messageType out",
          );
        continue;
      }
      if (template.messageType === undefined)
        issue("messageType", 'a protobuf body names its message type, e.g. "game.Move", defined in protobuf.proto');
      if (!plan.protobuf)
        ctx.addIssue({
          code: "custom",
          path: ["protobuf"],
          message: `${path.join(".")} is a protobuf body: give the .proto text that defines its message type as protobuf.proto`,
        });
    }
  })
  .superRefine(
    (plan, ctx) => {
      // An SLO its scenario never measures (slo-metrics.ts), said with the plan's other problems, not on the next save.
      // It runs whatever else is wrong (`when`) but where the scenario or target it reads is, so reads only valid rows.
      // `when` lets it run on input that is not a plan at all (a frame with no plan): read only what is there.
      if (typeof plan !== "object" || plan === null || !Array.isArray(plan.slos)) return;
      plan.slos.forEach((slo: unknown, i) => {
        const metric = (slo as { metric?: unknown } | null)?.metric;
        const problem = typeof metric === "string" ? sloMetricProblem(metric, plan) : null;
        if (problem?.refused)
          ctx.addIssue({ code: "custom", path: ["slos", i, "metric"], message: `${metric}: ${problem.message}` });
      });
    },
    {
      when: (payload) =>
        !payload.issues.some((issue) => issue.path?.[0] === "scenario" || issue.path?.[0] === "target"),
    },
  );
export type PlanSpec = z.infer<typeof PlanSpec>;
export type PlanSpecInput = z.input<typeof PlanSpec>;
