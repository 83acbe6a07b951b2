import { z } from "zod";

/**
 * Network conditions per cohort of players (plan.network): some clients get a worse network than the rig's.
 * Which clients are in which cohort is a pure function of the client's run-wide number ({{client}}), so every
 * agent and engine places a client the same way, whatever share of the run it holds (docs/networks.md).
 */

/** At most this many cohorts: every per-cohort figure is carried once per cohort per second. */
export const MAX_COHORTS = 8;

/** A cohort's name: how its figures are keyed in snapshots, series and summaries, and named by an SLO. */
export const CohortName = z
  .string()
  .regex(
    /^[a-z][a-z0-9-]{0,30}$/,
    'must be lower-case letters, digits and "-", starting with a letter, at most 31 characters, e.g. "mobile"',
  );
export type CohortName = z.infer<typeof CohortName>;

const percent = z.number().min(0, "must be 0 to 100 percent").max(100, "must be 0 to 100 percent");

/** One cohort's network: applied to its clients' traffic only, in the directions `direction` names. */
export const NetworkCohort = z
  .object({
    name: CohortName,
    /** The cohort's part of the run's clients, 0 to 1 (0.3 = 30%), spread evenly along the client numbers. */
    share: z.number().gt(0, "must be above 0").max(1, "must be at most 1 (all the clients)").optional(),
    /** Or how many of load.clients are in the cohort. */
    clients: z.number().int("must be a whole number of clients").min(1, "must be at least 1 client").optional(),
    /** One-way delay added in each direction the cohort's conditions apply to (20 each way = +40 ms round trip). */
    delayMs: z.number().min(0, "must be 0 ms or more").max(10_000, "must be at most 10000 ms").optional(),
    /** Each packet's delay is drawn uniformly from delayMs ± jitterMs (never below 0); jitter alone does not reorder a client's packets. */
    jitterMs: z.number().min(0, "must be 0 ms or more").max(10_000, "must be at most 10000 ms").optional(),
    /** Packets (datagrams) dropped at random, per direction. */
    lossPercent: percent.optional(),
    /** Packets sent twice, per direction. */
    duplicatePercent: percent.optional(),
    /** Packets that skip the delay and overtake those still held (as netem's reorder): needs delayMs. */
    reorderPercent: percent.optional(),
    /** Each client's link rate in each direction, kilobits per second; a packet waits for the link, and more than 1 s of backlog is dropped. */
    bandwidthKbps: z
      .number()
      .min(8, "must be at least 8 kbit/s")
      .max(10_000_000, "must be at most 10000000 kbit/s (10 Gbit/s)")
      .optional(),
    /** up: client to server only; down: server to client only; both (default): each way. */
    direction: z.enum(["up", "down", "both"], { message: "must be up, down or both" }).optional(),
    /** Seeds the cohort's random draws (default 1): the same plan draws the same losses for the same packets. */
    seed: z.number().int("must be a whole number").min(0).max(4_294_967_295).optional(),
    /** Stream transports on a target that is not on loopback: this rig's addresses the cohort's clients connect from (its packets are found by them). */
    sourceAddresses: z
      .array(z.string().trim().min(1))
      .min(1, "list at least one address or leave it out")
      .max(256)
      .optional(),
  })
  .superRefine((cohort, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
    if ((cohort.share === undefined) === (cohort.clients === undefined))
      issue("share", "give either share (a part of the clients, e.g. 0.3) or clients (a count), not both");
    if (cohort.reorderPercent && !cohort.delayMs)
      issue("reorderPercent", "a reordered packet overtakes delayed ones: give delayMs too");
  });
export type NetworkCohort = z.infer<typeof NetworkCohort>;

/** The plan's cohorts: names unique, at most MAX_COHORTS, shares and counts within the run's clients. */
export const NetworkCohorts = z
  .array(NetworkCohort)
  .min(1, "list at least one cohort or leave network out")
  .max(MAX_COHORTS, `at most ${MAX_COHORTS} cohorts`);
export type NetworkCohorts = z.infer<typeof NetworkCohorts>;

/** Checks what needs the whole plan: unique names, cohorts that fit in load.clients, and SLOs naming a cohort there is. */
export function checkNetworkCohorts(
  plan: {
    network?: NetworkCohorts | undefined;
    load: { clients: number };
    scenario: { kind: string };
    slos?: readonly { cohort?: string | undefined }[] | undefined;
  },
  ctx: z.RefinementCtx,
): void {
  const cohorts = plan.network ?? [];
  const names = cohorts.map((cohort) => cohort.name);
  (plan.slos ?? []).forEach((slo, i) => {
    if (slo.cohort === undefined || names.includes(slo.cohort)) return;
    const known = names.length
      ? `one of plan.network's cohorts (${names.join(", ")})`
      : "a cohort of plan.network, which has none";
    ctx.addIssue({
      code: "custom",
      path: ["slos", i, "cohort"],
      message: `"${slo.cohort}" is not a cohort of this plan: name ${known}, or leave cohort out to judge the whole run`,
    });
  });
  if (cohorts.length && plan.scenario.kind === "script") {
    ctx.addIssue({
      code: "custom",
      path: ["network"],
      message:
        "a script opens its own sockets, which network cohorts do not reach yet: leave network out, or use a built-in scenario",
    });
  }
  const seen = new Set<string>();
  cohorts.forEach((cohort, i) => {
    if (seen.has(cohort.name))
      ctx.addIssue({ code: "custom", path: ["network", i, "name"], message: `"${cohort.name}" is named twice` });
    seen.add(cohort.name);
  });
  const total = cohorts.reduce((sum, cohort) => sum + cohortShare(cohort, plan.load.clients), 0);
  if (total > 1 + 1e-9)
    ctx.addIssue({
      code: "custom",
      path: ["network"],
      message: `the cohorts take ${Math.round(total * 1000) / 10}% of load.clients (${plan.load.clients}): at most 100%`,
    });
}

/** A cohort's part of the run, 0 to 1. */
export function cohortShare(cohort: Pick<NetworkCohort, "share" | "clients">, runClients: number): number {
  return cohort.share ?? (cohort.clients ?? 0) / Math.max(1, runClients);
}

/** Client `client`'s point on [0, 2^32): the golden-ratio (Weyl) sequence, so any run of consecutive numbers is spread over [0, 1). */
export function clientPoint(client: number): number {
  return Math.imul(client + 1, 0x9e3779b9) >>> 0;
}

/**
 * Which cohort each client is in: a cohort holds the clients whose points fall in its part of the sorted points of
 * 0 … runClients−1, so at the full count each cohort has exactly round(cumulative share × clients) less the cohorts
 * before it, and any range of consecutive numbers (a room, an agent's or engine's part, a lower step) holds about
 * its share. Index -1: the rig's network.
 */
export interface CohortPlacement {
  /** The cohort index of `client` in plan.network, or -1. */
  cohortOf(client: number): number;
  /** Clients of each cohort among 0 … runClients−1. */
  readonly counts: readonly number[];
}

export function placeCohorts(
  cohorts: readonly Pick<NetworkCohort, "share" | "clients">[],
  runClients: number,
): CohortPlacement {
  if (cohorts.length === 0) return { cohortOf: () => -1, counts: [] };
  const points = new Uint32Array(runClients);
  for (let client = 0; client < runClients; client += 1) points[client] = clientPoint(client);
  points.sort();
  // Upper bounds (exclusive) of each cohort's points: the point of the first client past its cumulative count.
  const bounds: number[] = [];
  const counts: number[] = [];
  let cumulative = 0;
  let before = 0;
  for (const cohort of cohorts) {
    cumulative += cohortShare(cohort, runClients);
    const upTo = Math.min(runClients, Math.round(cumulative * runClients));
    counts.push(upTo - before);
    before = upTo;
    bounds.push(upTo < runClients ? points[upTo]! : 2 ** 32);
  }
  return {
    counts,
    cohortOf(client) {
      const point = clientPoint(client);
      for (let i = 0; i < bounds.length; i += 1) if (point < bounds[i]!) return i;
      return -1;
    },
  };
}
