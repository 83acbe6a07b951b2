import {
  autoSearchOf,
  nextLevelStart,
  nextSearchStep,
  SEARCH_END_TEXT,
  searchAnswer,
  type JudgedStep,
  type SearchEnd,
  type SearchLevel,
} from "@throng/protocol/capacity-search";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import { measureStep } from "@throng/wire/capacity-step";
import type { SearchFeed } from "../engine/search-feed";
import { localRecords } from "../metrics/run-summary";

export interface LocalSearchOptions {
  plan: PlanSpec;
  feed: SearchFeed;
  /** The search is over: the run should end now. */
  onEnd(reason: SearchEnd): void;
  log(line: string): void;
}

export interface LocalSearch {
  /** Every merged snapshot, in seq order. */
  onSnapshot(snapshot: MetricSnapshot): void;
  judged(): readonly (JudgedStep & { step: number })[];
}

/**
 * The standalone agent's automatic capacity search: it judges each step with the control plane's own measureStep
 * (the step's steady seconds, those before its connections reached the level left out; every SLO met over them),
 * and the shared nextSearchStep picks the next level (the first level again when it broke, as a retry). Null for
 * a plan that is not an automatic search.
 */
export function createLocalSearch(options: LocalSearchOptions): LocalSearch | null {
  const search = autoSearchOf(options.plan.load);
  if (!search) return null;
  const stepMs = search.stepDurationSec * 1000;
  const judged: (JudgedStep & { step: number })[] = [];
  const seconds: MetricSnapshot[] = [];
  let level: SearchLevel | undefined;
  let retry = false;
  let ended = false;
  return {
    judged: () => judged,
    onSnapshot(snapshot) {
      if (ended) return;
      // The run's start on the agent's clock: seq N covers startAt + N s.
      level ??= {
        step: 0,
        clients: search.startClients,
        phase: "coarse",
        startAt: snapshot.intervalStart - snapshot.seq * 1000,
      };
      const runStartAt = snapshot.intervalStart - snapshot.seq * 1000;
      if (snapshot.step === level.step) seconds.push(snapshot);
      const stepEnd = level.startAt + stepMs;
      if (snapshot.intervalStart + snapshot.intervalMs < stepEnd) return;
      const measured = measureStep(level.step, localRecords(seconds.splice(0)), options.plan.slos ?? []);
      const held = measured.seconds > 0 && measured.held;
      judged.push({ step: level.step, clients: level.clients, phase: level.phase, held, ...(retry ? { retry } : {}) });
      const next = nextSearchStep(search, judged);
      const nextText = next.done
        ? `done: ${SEARCH_END_TEXT[next.reason]}`
        : `next ${next.retry ? "step, the first level again" : `${next.phase} step`}: ${next.clients} clients`;
      options.log(
        `search: step ${level.step} (${retry ? "retry" : level.phase}, ${level.clients} clients) ${held ? "held" : "broke"}; ${nextText}`,
      );
      if (next.done) {
        ended = true;
        options.onEnd(next.reason);
        return;
      }
      // Decided as the step's last second arrives, on the engines' clock (not Date.now(), which may drift from it).
      const decidedAt = snapshot.intervalStart + snapshot.intervalMs;
      level = {
        step: level.step + 1,
        clients: next.clients,
        phase: next.phase,
        startAt: nextLevelStart(runStartAt, stepEnd, decidedAt),
      };
      retry = next.retry === true;
      options.feed.push(level);
    },
  };
}

/**
 * The search's answer in one line: the largest held level below every broken one, unless the server did not
 * hold it again after the break (then what is known instead), as core's report reads the same steps.
 */
export function searchVerdictText(judged: readonly JudgedStep[]): string {
  const answer = searchAnswer(judged);
  const { held, lastHeld, lowestBreak, range } = answer;
  if (held)
    return `capacity search: holds ${held.clients} clients (${held.phase} step)${lowestBreak === null ? "; no step broke, so this is a lower bound" : `; broke at ${lowestBreak}`}`;
  if (lastHeld) {
    const known = range
      ? `capacity is between ${range.from} and ${range.to} clients`
      : `capacity is not known, and may be below ${lastHeld.clients} clients`;
    return `capacity search: no valid estimate: ${lastHeld.clients} clients held before the break at ${lowestBreak}, but the server did not recover (${lastHeld.clients} did not hold again after it); ${known}`;
  }
  const tries = answer.retries > 0 ? ` in ${answer.retries + 1} tries` : "";
  return `capacity search: no step held${tries}${lowestBreak === null ? "" : `; capacity is below ${lowestBreak} clients`}`;
}
