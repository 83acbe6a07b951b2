import type { LoadShape, Slo } from "@throng/protocol/plan";
import { autoSearchOf, coarseLevels, searchAnswer, type AutoSearch } from "@throng/protocol/capacity-search";
import type { CapacityEstimate, CapacityStep } from "@throng/protocol/report";
import type { SnapshotRow } from "@throng/db/repos/snapshots";
import { measureStep } from "@throng/wire/capacity-step";
import { fitUsl } from "./usl";

/** A step's marginal throughput per added client below this share of the first step's means the knee. */
const KNEE_SLOPE_SHARE = 0.5;

/** Steps in order of their client count (an automatic search's fine phase goes back down). */
function kneeOf(unordered: readonly CapacityStep[]): number | null {
  const steps = [...unordered].sort((a, b) => a.clients - b.clients || a.step - b.step);
  const first = steps[0];
  if (!first || first.clients === 0) return null;
  const initialSlope = first.throughputPerSec / first.clients;
  for (let i = 1; i < steps.length; i++) {
    const prev = steps[i - 1]!;
    const cur = steps[i]!;
    const added = cur.clients - prev.clients;
    if (added > 0 && (cur.throughputPerSec - prev.throughputPerSec) / added < KNEE_SLOPE_SHARE * initialSlope)
      return prev.clients;
  }
  return null;
}

/**
 * Each step's phase in an automatic search: coarse levels only climb, after the first level was tried again
 * while every try broke (a retry); after the break the search goes back down to the last coarse level that held
 * and settles there (same level) until it holds again; every step after that climbs above it and is fine.
 */
function withPhases(search: AutoSearch, steps: readonly CapacityStep[]): CapacityStep[] {
  const [first, second = first] = coarseLevels(search);
  let everyTryBroke = true;
  const tried = steps.map((s, i) => {
    // Measured counts can be a client off their level: a retry is nearer the first level than the second.
    const retry = i > 0 && everyTryBroke && Math.abs(s.clients - first!) <= Math.abs(s.clients - second!);
    everyTryBroke &&= !s.held;
    return retry ? { ...s, retry: true } : s;
  });
  const firstDown = tried.findIndex((s, i) => i > 0 && !s.retry && s.clients < tried[i - 1]!.clients);
  const lastHeld = firstDown >= 2 ? tried[firstDown - 2]!.clients : null;
  let settling = true;
  return tried.map((s, i) => {
    if (firstDown === -1 || i < firstDown) return { ...s, phase: "coarse" };
    settling &&= s.clients === lastHeld;
    return { ...s, phase: settling ? "settle" : "fine" };
  });
}

const n = (x: number) => x.toLocaleString("en-US");
const plural = (count: number, word: string, words = `${word}s`) => `${count} ${count === 1 ? word : words}`;

/** "Searched coarse steps of 200, then 40 between 800 and 1,000." */
function searchSentence(search: AutoSearch, steps: readonly CapacityStep[]): string {
  // The coarse climb: each level's last try.
  const coarse = steps.filter((s, i) => s.phase === "coarse" && !steps[i + 1]?.retry);
  const settled = steps.filter((s) => s.phase === "settle").length;
  const retries = steps.filter((s) => s.retry).length;
  const coarseSize = Math.round((search.maxClients - search.startClients) / (search.coarseSteps - 1));
  const tried =
    retries > 0
      ? ` (the first level, ${n(steps[0]!.clients)}, tried ${plural(1 + retries, "time")} after it broke)`
      : "";
  const broke = coarse.findIndex((s) => !s.held);
  if (broke <= 0) return `Searched coarse steps of ${n(coarseSize)}${tried}.`;
  const from = coarse[broke - 1]!.clients;
  const to = coarse[broke]!.clients;
  if (!steps.some((s) => s.phase === "fine")) {
    const held = steps.some((s) => s.phase === "settle" && s.held);
    return `Searched coarse steps of ${n(coarseSize)}${tried}${settled > 0 ? `, then ${plural(settled, "settle step")} back at ${n(from)} (${held ? "it held again" : "none held"})` : ""}.`;
  }
  const settling =
    settled > 0 ? ` (after ${plural(settled, "settle step")} back at ${n(from)} while the server recovered)` : "";
  return `Searched coarse steps of ${n(coarseSize)}${tried}, then ${n(Math.round((to - from) / search.fineSteps))} between ${n(from)} and ${n(to)}${settling}.`;
}

type Estimate = Omit<CapacityEstimate, "sentence">;

/** The sentence at the top of the report; `saturation` lists the problems besides why there is no estimate. */
function describe(
  estimate: Estimate,
  slos: readonly Slo[],
  saturation: readonly string[],
  notHeldAgain: number,
): string {
  const held = slos.map((s) => `${s.metric} < ${s.below}`).join(", ") || "no SLOs";
  const breakingStep = estimate.steps.find((s) => s.step === estimate.breakingStep);
  const prefix = saturation.length > 0 ? `Not a valid estimate (${saturation.join("; ")}): ` : "";
  const last = estimate.lastHeldClients;
  if (estimate.clients === null && last !== null && last !== undefined) {
    // A level held, then did not hold again after the break: say what is known, and claim nothing held.
    const brokeAt = breakingStep
      ? `the break at ${n(breakingStep.clients)} clients on ${estimate.breakingSlos.join(", ")}`
      : "the break";
    const known = estimate.range
      ? `capacity is between ${n(estimate.range.from)} and ${n(estimate.range.to)} clients`
      : `capacity is not known, and may be below ${n(last)} clients`;
    return `${prefix || "Not a valid estimate: "}${n(last)} clients held before ${brokeAt}, but the server did not recover (${n(last)} did not hold again in ${plural(notHeldAgain, "step")} after the break), so ${n(last)} is not claimed as held; ${known}.`;
  }
  if (estimate.clients === null) {
    const tries = estimate.steps.filter((s) => s.retry).length;
    return `${prefix}Broke at the first step (${estimate.breakingSlos.join(", ")})${tries > 0 ? ` in all ${1 + tries} tries` : ""}: capacity is below ${n(estimate.steps[0]?.clients ?? 0)} clients.`;
  }
  const breaking = breakingStep
    ? `broke at ${breakingStep.clients} clients on ${estimate.breakingSlos.join(", ")}`
    : "no SLO broke up to the last step, so this is a lower bound";
  const min =
    typeof estimate.meetsMinClients === "boolean"
      ? ` ${estimate.meetsMinClients ? "At least" : "Below"} the plan's minClients of ${n(estimate.minClients!)}.`
      : "";
  return `${prefix}Holds ${n(estimate.clients)} clients while meeting ${held}; ${breaking}.${min}`;
}

/**
 * The capacity estimate of a step-up run: the largest step, below every one that broke, that held every
 * SLO over its steady seconds, unless a later step contradicts it (the server did not hold it again after the
 * break); the knee where throughput stops growing; a USL fit; whether an agent, not the server, was the limit
 * in the steps that decide it (then the estimate is not valid); and whether it meets the plan's minClients.
 */
export function analyzeCapacity(
  rows: readonly SnapshotRow[],
  slos: readonly Slo[],
  load?: LoadShape,
): CapacityEstimate | null {
  const byStep = new Map<number, SnapshotRow[]>();
  for (const row of rows)
    if (row.step !== null && row.step !== undefined) byStep.set(row.step, [...(byStep.get(row.step) ?? []), row]);
  if (byStep.size === 0) return null;
  const search = load ? autoSearchOf(load) : null;
  const measured = [...byStep.entries()].sort(([a], [b]) => a - b).map(([step, list]) => measureStep(step, list, slos));
  const steps = search ? withPhases(search, measured) : measured;
  const answer = searchAnswer(steps);
  // Settle steps and first tries a retry superseded count neither way (a settle step's throughput includes the
  // backlog it drains: no point of throughput against clients either).
  const climbing = steps.filter((s, i) => s.phase !== "settle" && (s.held || !steps[i + 1]?.retry));
  // The lowest level that broke (the first break of a climb; an automatic search's fine break below its coarse one).
  const breaking = climbing.filter((s) => !s.held).sort((a, b) => a.clients - b.clients || a.step - b.step)[0] ?? null;
  const deciding = [answer.lastHeld, breaking].filter((s): s is CapacityStep => s !== null);
  const saturation = deciding.flatMap((s) =>
    s.saturatedAgents.map((a) => `agent ${a.agentId} was saturated at ${s.clients} clients (${a.reason})`),
  );
  const problems = [...saturation];
  if (answer.lastHeld === null)
    problems.push(
      answer.retries > 0
        ? `the first step broke an SLO in all ${1 + answer.retries} tries`
        : "the first step already broke an SLO",
    );
  else if (answer.held === null)
    problems.push(`the server did not recover: ${answer.lastHeld.clients} clients did not hold again after the break`);
  const valid = problems.length === 0 && answer.held !== null;
  const shape = load?.shape?.kind === "step-up" ? load.shape : undefined;
  const minClients = shape?.minClients ?? null;
  const settle = steps.filter((s) => s.phase === "settle");
  const estimate: Estimate = {
    clients: answer.held?.clients ?? null,
    valid,
    problems,
    lastHeldClients: answer.lastHeld?.clients ?? null,
    recovered: settle.length > 0 ? settle.some((s) => s.held) : null,
    range: answer.range,
    minClients,
    meetsMinClients: minClients === null || !valid ? null : answer.held!.clients >= minClients,
    breakingStep: breaking?.step ?? null,
    breakingSlos: breaking?.slos.filter((v) => !v.passed).map((v) => v.metric) ?? [],
    kneeClients: kneeOf(climbing),
    usl: fitUsl(climbing.map((s) => ({ clients: s.clients, throughput: s.throughputPerSec }))),
    steps,
  };
  const sentence = describe(estimate, slos, saturation, answer.notHeldAgain.length);
  return { ...estimate, sentence: search ? `${sentence} ${searchSentence(search, steps)}` : sentence };
}
