import type { ScriptScenario } from "@throng/protocol/plan";
import type { SnapshotCounters, SnapshotHistograms } from "@throng/protocol/snapshot";
import type { Histogram } from "hdr-histogram-js";
import { createLatencyHistogram, encodeHistogram, recordMicros } from "../metrics/histogram";
import { createSnapshotBuilder, type ScenarioMetrics } from "../metrics/snapshot-builder";

/** What a worker hands the engine each second: a snapshot's counters and histograms, folded into the engine's (SnapshotBuilder.fold). */
export interface ScriptMetricsPart {
  counters: SnapshotCounters;
  histograms: SnapshotHistograms;
}

/** More distinct names than this are refused: a name per message (an id in it) would grow every snapshot without end. */
export const MAX_SCRIPT_METRICS = 32;
const NAME = /^[a-z][a-z0-9-]{0,40}$/;
/** Distinct error messages logged per worker; past this, only counted. */
const MAX_LOGGED_MESSAGES = 100;

/** Health is the engine's to measure: the worker's builder only counts. */
const NO_HEALTH = { sample: () => ({ cpuPercent: 0, eventLoopP99Ms: 0, rssBytes: 0 }), stop() {} };

/**
 * One worker's measurements between two flushes: the usual scenario metrics (broadcasts, errors) through a snapshot
 * builder of its own, plus the script's named histograms and counters. A declared metric is present from the first
 * flush; an undeclared one from its first use.
 */
export function createScriptTally(declared: ScriptScenario["metrics"] = [], log: (message: string) => void) {
  const builder = createSnapshotBuilder({ runId: "00000000-0000-4000-8000-000000000000", health: NO_HEALTH });
  const kinds = new Map<string, "histogram" | "counter">();
  const histograms = new Map<string, Histogram>();
  const counts = new Map<string, number>();
  const logged = new Set<string>();
  const declare = (name: string, kind: "histogram" | "counter") => {
    const known = kinds.get(name);
    if (known === kind) return;
    if (known)
      throw new TypeError(
        `script metric "${name}" is a ${known}: measure() records histograms, count() counters; use another name`,
      );
    if (!NAME.test(name))
      throw new TypeError(
        `script metric name "${name}" must be lower-case letters, digits and "-", starting with a letter (at most 41 characters)`,
      );
    if (kinds.size >= MAX_SCRIPT_METRICS)
      throw new TypeError(`script metric "${name}": a script may name at most ${MAX_SCRIPT_METRICS} metrics`);
    kinds.set(name, kind);
    if (kind === "histogram") histograms.set(name, createLatencyHistogram());
    else counts.set(name, 0);
  };
  for (const metric of declared) declare(metric.name, metric.kind);

  return {
    metrics: builder.metrics as ScenarioMetrics,
    measured(name: string, micros: number): void {
      declare(name, "histogram");
      recordMicros(histograms.get(name)!, micros);
    },
    counted(name: string, n: number): void {
      declare(name, "counter");
      if (!Number.isFinite(n) || n < 0) throw new TypeError(`count("${name}", ${n}): give a whole number of 0 or more`);
      counts.set(name, counts.get(name)! + Math.round(n));
    },
    /** Checks a name up front (measure() throws at once for a bad one, before its work starts). */
    declare,
    /** An error counted under `kind`; its message is logged the first time it is seen. */
    failed(kind: string, cause: unknown): void {
      builder.metrics.error(kind);
      const message =
        cause instanceof Error ? `${cause.name === "Error" ? "" : `${cause.name}: `}${cause.message}` : String(cause);
      if (logged.has(message) || logged.size >= MAX_LOGGED_MESSAGES) return;
      logged.add(message);
      log(
        logged.size === MAX_LOGGED_MESSAGES
          ? `${message} (further distinct script errors are counted, not logged)`
          : message,
      );
    },
    /** Everything since the last flush; starts the next interval from zero. */
    flush(): ScriptMetricsPart {
      const { counters, histograms: measured } = builder.take({
        seq: 0,
        intervalStart: 0,
        intervalMs: 1000,
        clients: 0,
      });
      const part: ScriptMetricsPart = { counters, histograms: measured };
      if (histograms.size)
        part.histograms.script = Object.fromEntries([...histograms].map(([name, h]) => [name, encodeHistogram(h)]));
      if (counts.size) part.counters.scriptCounts = Object.fromEntries(counts);
      for (const h of histograms.values()) h.reset();
      for (const name of counts.keys()) counts.set(name, 0);
      return part;
    },
  };
}

export type ScriptTally = ReturnType<typeof createScriptTally>;
