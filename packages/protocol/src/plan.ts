import { z } from "zod";

/** A WebSocket server under test. Load goes only where the plan points. */
export const WebSocketTarget = z.object({
  protocol: z.literal("websocket"),
  url: z
    .string()
    .trim()
    .refine((value) => /^wss?:\/\/[^\s/]+/.test(value), {
      message: "must be a ws:// or wss:// URL, e.g. ws://127.0.0.1:7070/ws",
    }),
});
export type WebSocketTarget = z.infer<typeof WebSocketTarget>;

/** Where the load goes; more protocols (tcp, udp) join this union. */
export const Target = z.discriminatedUnion("protocol", [WebSocketTarget]);
export type Target = z.infer<typeof Target>;

/** Each client sends a ping every `intervalMs` and waits for the pong that answers it. */
export const PingPongScenario = z.object({
  kind: z.literal("ping-pong"),
  intervalMs: z.number().int().min(10, "must be at least 10 ms").max(600_000, "must be at most 600000 ms"),
  messageBytes: z.number().int().min(32, "must be at least 32 bytes").max(65_536, "must be at most 65536 bytes"),
});
export type PingPongScenario = z.infer<typeof PingPongScenario>;

/** What each client does; echo-flood, movement-sync and login-storm join this union. */
export const Scenario = z.discriminatedUnion("kind", [PingPongScenario]);
export type Scenario = z.infer<typeof Scenario>;

/** How many clients, for how long. Stages and arrival rates join later. */
export const LoadShape = z.object({
  clients: z.number().int().min(1, "must be at least 1").max(1_000_000, "must be at most 1000000"),
  durationSec: z.number().int().min(1, "must be at least 1 s").max(86_400, "must be at most 86400 s"),
  rampUpSec: z.number().int().min(0).max(3_600).default(0),
});
export type LoadShape = z.infer<typeof LoadShape>;

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

/** A plan as the user writes it (browser form, API body, plan file). */
export const PlanSpec = z.object({
  name: z.string().trim().min(1, "give the plan a name").max(120, "must be at most 120 characters"),
  target: Target,
  scenario: Scenario,
  load: LoadShape,
  /** Omitted: every online agent, and a lost agent leaves the run going on degraded. */
  agents: AgentSelector.optional(),
});
export type PlanSpec = z.infer<typeof PlanSpec>;
export type PlanSpecInput = z.input<typeof PlanSpec>;
