import { z } from "zod";

// A client's session: steps each client runs after its connection opens and before its scenario's traffic (an auth
// message, an MQTT CONNECT, a room join), and the rules that read a server's replies. docs/protocols.md explains them.

const hexBytes = z
  .string()
  .regex(/^([0-9a-fA-F]{2})+$/, "must be hex bytes, e.g. 2b4f4b")
  .max(512);
const offset = z.number().int().min(0).max(65_535);

function compiles(pattern: string): boolean {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
}
const pattern = z.string().min(1).max(500).refine(compiles, { message: "is not a valid regular expression" });

/** What a reply must look like, in a plan's session `expect` step or a scenario's `reply` check. */
export const ReplyRule = z.union(
  [
    /** A JSON reply whose field (dotted path, "data.type") is present, or equal to `equals`. */
    z
      .object({
        json: z
          .object({ field: z.string().min(1), equals: z.union([z.string(), z.number(), z.boolean()]).optional() })
          .strict(),
      })
      .strict(),
    /** A regular expression that matches somewhere in the reply's text (anchor it with ^ for a prefix). */
    z.object({ regex: pattern }).strict(),
    /** The reply starts with these bytes (compared without decoding: cheap on the hot path). */
    z.object({ prefixHex: hexBytes }).strict(),
    /** The reply holds these bytes at this offset. */
    z.object({ bytes: z.object({ offset, hex: hexBytes }).strict() }).strict(),
  ],
  { error: "give one rule: { json: { field, equals? } }, { regex }, { prefixHex } or { bytes: { offset, hex } }" },
);
export type ReplyRule = z.infer<typeof ReplyRule>;

/** The most respond rules a scenario may have: each received message is tried against every one. */
export const MAX_RESPOND_RULES = 8;

/**
 * A scenario's answers to the server's own messages (Engine.IO's ping "2" answered "3", a game server's keep-alive):
 * a received message that matches `when`, during the session or the traffic, is answered at once with `send` and
 * goes no further (not a reply, a broadcast or a round trip). A factory, like sessionStepsOf: plan.ts owns
 * MessageTemplate and builds `RespondRules` from it once.
 */
export function respondRulesOf<M extends z.ZodType<{ body: string }>>(message: M) {
  return z
    .array(
      z
        .object({ when: ReplyRule, send: message })
        .strict()
        .refine((rule) => !/\{\{vars\./.test((rule as { send: { body: string } }).send.body), {
          message:
            "a respond message may not use {{vars.NAME}}: it can answer before the session has captured anything (write the value out)",
          path: ["send", "body"],
        }),
    )
    .max(MAX_RESPOND_RULES, `at most ${MAX_RESPOND_RULES} respond rules`);
}

/** Where a session's `expect` step copies a value of the reply into a client's variable (used as {{vars.NAME}}). */
export const Capture = z.object({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,63}$/, "must be a name of letters, digits and _, e.g. token"),
  from: z.union(
    [
      /** A JSON field (dotted path); a number stays a number (written as a binary integer in hex templates). */
      z.object({ json: z.string().min(1) }).strict(),
      /** A capture group of a regular expression over the reply's text (default group 1; 0 is the whole match). */
      z.object({ regex: pattern, group: z.number().int().min(0).max(99).optional() }).strict(),
      /** Raw bytes at an offset, kept as hex digits or read as a big-endian unsigned integer (at most 6 bytes). */
      z
        .object({
          bytes: z.object({ offset, length: z.number().int().min(1).max(256), as: z.enum(["hex", "uint"]) }).strict(),
        })
        .strict()
        .refine((from) => from.bytes.as === "hex" || from.bytes.length <= 6, {
          message: 'a "uint" capture reads at most 6 bytes',
        }),
    ],
    { error: "give one source: { json: path }, { regex, group? } or { bytes: { offset, length, as } }" },
  ),
});
export type Capture = z.infer<typeof Capture>;

/** Where movement-sync reads a number out of a received room broadcast (its sender, seq or send time). */
export const Extractor = z.union(
  [
    /** A field of the reply decoded by the plan's wire format (JSON text, MessagePack, protobuf replyType); dotted path. */
    z.object({ json: z.string().min(1) }).strict(),
    /** A capture group of a regular expression over the reply's text (default group 1), read as a number. */
    z.object({ regex: pattern, group: z.number().int().min(0).max(99).optional() }).strict(),
    /** An unsigned integer of 1 to 8 bytes at an offset (exact up to 2^53), big-endian unless told. */
    z
      .object({
        bytes: z
          .object({
            offset,
            length: z.number().int().min(1, "reads 1 to 8 bytes").max(8, "reads 1 to 8 bytes"),
            byteOrder: z.enum(["big", "little"]).optional(),
          })
          .strict(),
      })
      .strict(),
  ],
  { error: "give one source: { json: path }, { regex, group? } or { bytes: { offset, length, byteOrder? } }" },
);
export type Extractor = z.infer<typeof Extractor>;

/**
 * How movement-sync recognises a room broadcast from any server: `filter` says which received messages are
 * broadcasts (the rest are ignored), and the extractors read the sending client ({{client}} as its update wrote
 * it), the update's seq and, when the server relays it, the update's send time in µs.
 */
export const BroadcastRule = z
  .object({
    filter: ReplyRule.optional(),
    sender: Extractor,
    seq: Extractor,
    /** Left out: latency counts from the agent's own record of when it sent (sender, seq). */
    sentAtUs: Extractor.optional(),
  })
  .strict();
export type BroadcastRule = z.infer<typeof BroadcastRule>;

/** A session step that waits for the reply matching `reply`; skips other messages, fails on `failWhen` or after `timeoutMs`. */
export const ExpectStep = z.object({
  kind: z.literal("expect"),
  reply: ReplyRule,
  /** A reply that matches this (an error reply, e.g. regex "^-ERR") fails the step with cause "session-rejected". */
  failWhen: ReplyRule.optional(),
  /** Fail with cause "session-timeout" when no matching reply came this long after the step began (default 10000 ms). */
  timeoutMs: z.number().int().min(1).max(600_000).optional(),
  capture: z.array(Capture).max(16).optional(),
});
export type ExpectStep = z.infer<typeof ExpectStep>;

/** A session step that pauses the client before its next step. */
export const WaitStep = z.object({ kind: z.literal("wait"), ms: z.number().int().min(0).max(600_000) });
export type WaitStep = z.infer<typeof WaitStep>;

/** A {{...}} other than {{client}}, {{run}}, {{vars.NAME}} and {{secrets.NAME}}: the only placeholders a URL or header can fill. */
const OTHER_PLACEHOLDER =
  /\{\{(?!(?:client|run|vars\.[A-Za-z_][A-Za-z0-9_]*|secrets\.[A-Za-z_][A-Za-z0-9_]{0,63})\}\})/;
const PLACEHOLDERS_ALLOWED = "may use only {{client}}, {{run}}, {{vars.NAME}} and {{secrets.NAME}} placeholders";
/** A URL whose scheme is one of `schemes` and whose host and port are written out (no placeholder before the path). */
export function literalHostUrl(url: string, schemes: string): boolean {
  return new RegExp(`^(?:${schemes}):\\/\\/[^\\s/?#{}]+(?:[/?#]|$)`).test(url);
}
const urlOrHeaderTemplate = z
  .string()
  .max(4_096)
  .refine((text) => !OTHER_PLACEHOLDER.test(text), { message: PLACEHOLDERS_ALLOWED });

/**
 * An HTTP request made before the client's socket opens (matchmaking, auth). Its captures, read from the response
 * body, are usable in every later template and in the target's WebSocket url and headers.
 */
function httpStepOf<M extends z.ZodType>(message: M) {
  return z
    .object({
      kind: z.literal("http"),
      /** Default "GET". */
      method: z.enum(["GET", "POST", "PUT"]).optional(),
      /** {{client}}, {{run}}, {{vars.NAME}} and {{secrets.NAME}} (URL-encoded) after the host; the host and port are written out, for the allow-lists. */
      url: urlOrHeaderTemplate.refine((url) => literalHostUrl(url, "https?"), {
        message:
          "must be an http:// or https:// URL whose host and port are written out, e.g. http://127.0.0.1:8080/match?client={{client}} (placeholders only after the host)",
      }),
      headers: z.record(z.string().min(1), urlOrHeaderTemplate).optional(),
      body: message.optional(),
      /** The statuses that count as success (default 200-299); any other fails the step with cause "http-status". */
      expectStatus: z.array(z.number().int().min(100).max(599)).min(1).max(32).optional(),
      /** No complete answer this long after the request began fails the step with cause "http-timeout" (default 10000 ms). */
      timeoutMs: z.number().int().min(1).max(600_000).optional(),
      /** Read from the response body, as an expect step reads a reply. */
      capture: z.array(Capture).max(16).optional(),
    })
    .refine((step) => step.body === undefined || (step.method ?? "GET") !== "GET", {
      message: "a GET request has no body: set method POST or PUT, or leave body out",
      path: ["body"],
    });
}

/** The most steps a session has: bounds the per-step figures a snapshot and a summary carry (snapshot.ts). */
export const MAX_SESSION_STEPS = 32;

/**
 * The session steps around the plan's message template. A factory, not a constant: plan.ts imports this file and
 * owns MessageTemplate, so an import back would be a cycle; plan.ts builds `SessionSteps` from it once.
 */
export function sessionStepsOf<M extends z.ZodType>(message: M) {
  const SendStep = z.object({ kind: z.literal("send"), message });
  return z
    .array(z.discriminatedUnion("kind", [httpStepOf(message), SendStep, ExpectStep, WaitStep]))
    .max(MAX_SESSION_STEPS, `a session has at most ${MAX_SESSION_STEPS} steps`)
    .superRefine((steps, ctx) => {
      // http steps run before the socket opens, so none may follow a step that needs it.
      const firstSocketStep = steps.findIndex((step) => step.kind !== "http");
      steps.forEach((step, index) => {
        if (step.kind === "http" && firstSocketStep >= 0 && index > firstSocketStep) {
          ctx.addIssue({
            code: "custom",
            path: [index, "kind"],
            message: `an http step runs before the client's socket opens: put it before step ${firstSocketStep} (${steps[firstSocketStep]!.kind}), with every other http step first`,
          });
        }
      });
    });
}

/** How ping-pong and echo-flood check each reply: one that matches `failWhen` or misses `expect` is a "bad-reply" error. */
export const ReplyCheck = z.object({
  expect: ReplyRule.optional(),
  failWhen: ReplyRule.optional(),
});
export type ReplyCheck = z.infer<typeof ReplyCheck>;

const VAR = /\{\{vars\.([A-Za-z_][A-Za-z0-9_]*)\}\}/g;

/** The {{vars.NAME}} names a template body uses. */
export function varsUsed(body: string): string[] {
  return [...body.matchAll(VAR)].map((match) => match[1]!);
}

type HttpStepLike = {
  kind: "http";
  url: string;
  headers?: Readonly<Record<string, string>>;
  body?: { body: string };
  capture?: readonly { name: string }[];
};
interface SessionLike {
  session?: readonly (
    | HttpStepLike
    | { kind: "send"; message: { body: string } }
    | { kind: "expect"; capture?: readonly { name: string }[] }
    | { kind: "wait" }
  )[];
}

/** Each text of an http step that may hold {{vars.NAME}}, with its path inside the step. */
function httpTexts(step: HttpStepLike): { path: (string | number)[]; text: string }[] {
  return [
    { path: ["url"], text: step.url },
    ...Object.entries(step.headers ?? {}).map(([name, text]) => ({ path: ["headers", name], text })),
    ...(step.body ? [{ path: ["body", "body"], text: step.body.body }] : []),
  ];
}

/**
 * A scenario's check that every {{vars.NAME}} is captured before it is used: in a session step, by an earlier
 * step; in the scenario's own messages (`bodies`), by any step. Use in the scenario's superRefine.
 */
export function checkSessionVars(
  scenario: SessionLike,
  bodies: readonly (string | undefined)[],
  ctx: z.RefinementCtx,
): void {
  const captured = new Set<string>();
  const check = (text: string, path: (string | number)[]) => {
    for (const name of varsUsed(text)) {
      if (!captured.has(name))
        ctx.addIssue({
          code: "custom",
          path: ["session", ...path],
          message: `{{vars.${name}}} is used before a step captures "${name}"`,
        });
    }
  };
  scenario.session?.forEach((step, index) => {
    if (step.kind === "http") for (const { path, text } of httpTexts(step)) check(text, [index, ...path]);
    if (step.kind === "send") check(step.message.body, [index, "message", "body"]);
    if (step.kind === "expect" || step.kind === "http")
      for (const capture of step.capture ?? []) captured.add(capture.name);
  });
  for (const body of bodies) {
    for (const name of varsUsed(body ?? "")) {
      if (!captured.has(name))
        ctx.addIssue({
          code: "custom",
          path: ["session"],
          message: `{{vars.${name}}} is used, but no session step captures "${name}"`,
        });
    }
  }
}

/**
 * A plan's check of a WebSocket target's url and headers when they use placeholders: only {{client}} and
 * {{vars.NAME}}, after a host and port written out (the allow-lists read them before any load), and each variable
 * captured by an http step (the target is resolved per client after its http steps, before its socket opens).
 */
export function checkTargetVars(
  plan: {
    target: { protocol: string; url?: string; headers?: Readonly<Record<string, string>> };
    scenario: SessionLike & { kind: string };
  },
  ctx: z.RefinementCtx,
): void {
  const { target } = plan;
  if (target.protocol !== "websocket") return;
  const fromHttp = new Set(
    (plan.scenario.session ?? []).flatMap((step) =>
      step.kind === "http" ? (step.capture ?? []).map((capture) => capture.name) : [],
    ),
  );
  const texts = [
    { path: ["target", "url"], text: target.url ?? "" },
    ...Object.entries(target.headers ?? {}).map(([name, text]) => ({ path: ["target", "headers", name], text })),
  ];
  for (const { path, text } of texts) {
    if (!text.includes("{{")) continue;
    const issue = (message: string) => ctx.addIssue({ code: "custom", path, message });
    if (OTHER_PLACEHOLDER.test(text)) issue(PLACEHOLDERS_ALLOWED);
    if (path[1] === "url" && !literalHostUrl(text, "wss?"))
      issue("write the host and port out: placeholders may only come after them (path, query)");
    for (const name of varsUsed(text)) {
      if (!fromHttp.has(name))
        issue(
          `{{vars.${name}}} must be captured by an http step: the target is resolved before the socket opens, so only http steps' captures exist then`,
        );
    }
  }
}
