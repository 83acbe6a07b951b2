import { autoSearchOf, holdSeconds, largestHeldBelowBreaks, nextLevelStart, nextSearchStep, SEARCH_END_TEXT, type JudgedStep, type SearchEnd, type SearchLevel } from "@throng/protocol/capacity-search";
import type { PlanSpec } from "@throng/protocol/plan";
import type { MetricSnapshot } from "@throng/protocol/snapshot";
import type { SearchFeed } from "../engine/search-feed";
import { checkSlos, summariseRun } from "../metrics/run-summary";

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
 * The standalone agent's automatic capacity search: it judges its own seconds as the server judges merged
 * ones (the step's hold, its first second left out; every SLO met over the hold, checked as the run's SLOs
 * are), and the shared nextSearchStep picks the next level. Null for a plan that is not an automatic search.
 */
export function createLocalSearch(options: LocalSearchOptions): LocalSearch | null {
  const search = autoSearchOf(options.plan.load);
  if (!search) return null;
  const stepMs = search.stepDurationSec * 1000;
  const judged: (JudgedStep & { step: number })[] = [];
  const seconds: MetricSnapshot[] = [];
  let level: SearchLevel | undefined;
  let ended = false;
  return {
    judged: () => judged,
    onSnapshot(snapshot) {
      if (ended) return;
      // The run's start on the agent's clock: seq N covers startAt + N s.
      level ??= { step: 0, clients: search.startClients, phase: "coarse", startAt: snapshot.intervalStart - snapshot.seq * 1000 };
      const runStartAt = snapshot.intervalStart - snapshot.seq * 1000;
      if (snapshot.step === level.step) seconds.push(snapshot);
      const stepEnd = level.startAt + stepMs;
      if (snapshot.intervalStart + snapshot.intervalMs < stepEnd) return;
      const hold = holdSeconds(seconds.splice(0), (s) => s.seq);
      const held = hold.length > 0 && checkSlos(summariseRun(hold), options.plan.slos ?? []).every((r) => r.passed);
      judged.push({ step: level.step, clients: level.clients, phase: level.phase, held });
      const next = nextSearchStep(search, judged);
      options.log(`search: step ${level.step} (${level.phase}, ${level.clients} clients) ${held ? "held" : "broke"}; ${next.done ? `done: ${SEARCH_END_TEXT[next.reason]}` : `next ${next.phase} step: ${next.clients} clients`}`);
      if (next.done) {
        ended = true;
        options.onEnd(next.reason);
        return;
      }
      // Decided as the step's last second arrives, on the engines' clock (not Date.now(), which may drift from it).
      const decidedAt = snapshot.intervalStart + snapshot.intervalMs;
      level = { step: level.step + 1, clients: next.clients, phase: next.phase, startAt: nextLevelStart(runStartAt, stepEnd, decidedAt) };
      options.feed.push(level);
    },
  };
}

/** The search's answer in one line: the largest held level below every broken one. */
export function searchVerdictText(judged: readonly JudgedStep[]): string {
  const best = largestHeldBelowBreaks(judged);
  // A settle step that broke was the server still draining the overload, not a break of its capacity.
  const broke = judged.filter((s) => !s.held && s.phase !== "settle").map((s) => s.clients);
  const lowestBreak = broke.length ? Math.min(...broke) : null;
  if (!best) return `capacity search: no step held${lowestBreak === null ? "" : `; capacity is below ${lowestBreak} clients`}`;
  return `capacity search: holds ${best.clients} clients (${best.phase} step)${lowestBreak === null ? "; no step broke, so this is a lower bound" : `; broke at ${lowestBreak}`}`;
}
