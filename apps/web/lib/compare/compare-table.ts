// Runs side by side: which summary figures to show, in what units, and whether a change is for the better.
// The API computes the deltas (against the first run); this only words and colours them.
import type { RunComparison } from "@throng/protocol/report";
import { formatDecimal, formatInteger, formatMs, formatRate } from "../shared/format";
import { formatSloValue, metricName } from "../shared/slo-text";
import { outcomeLabel } from "../shared/verdict";

type Better = "higher" | "lower";

export const COMPARED_FIGURES: readonly {
  key: string;
  label: string;
  better: Better;
  format: (value: number) => string;
}[] = [
  { key: "peakClients", label: "Peak clients", better: "higher", format: formatInteger },
  { key: "peakConnections", label: "Peak connections", better: "higher", format: formatInteger },
  { key: "messagesPerSec", label: "Messages/s", better: "higher", format: formatRate },
  { key: "rttP50Ms", label: "RTT p50", better: "lower", format: formatMs },
  { key: "rttP90Ms", label: "RTT p90", better: "lower", format: formatMs },
  { key: "rttP99Ms", label: "RTT p99", better: "lower", format: formatMs },
  { key: "rttMaxMs", label: "RTT max", better: "lower", format: formatMs },
  { key: "errors", label: "Errors", better: "lower", format: formatInteger },
  { key: "connectionsFailed", label: "Connection failures", better: "lower", format: formatInteger },
  // Only when a KCP run is compared (TCP beside KCP); "—" for a run without KCP, whose wire bytes are the kernel's.
  { key: "kcpRetransmits", label: "KCP retransmissions", better: "lower", format: formatInteger },
  { key: "kcpOverheadPercent", label: "Wire overhead (KCP, over payload)", better: "lower", format: formatOverhead },
];

/** KCP's wire overhead, "+14.2 %" (protocol kcp-figures.ts). */
export function formatOverhead(percent: number): string {
  return `${percent >= 0 ? "+" : "−"}${formatDecimal(Math.abs(percent), 1)} %`;
}

const PROTOCOL_WORDS: Record<string, string> = { websocket: "WebSocket", tcp: "TCP", udp: "UDP", kcp: "KCP" };

/** A compared run's protocol as its column says it ("TCP", "KCP"); "" when the API did not say. */
export function protocolWord(protocol: string | undefined): string {
  return protocol ? (PROTOCOL_WORDS[protocol] ?? protocol) : "";
}

/** "noise": the change is inside either run's own second-to-second spread (protocol compare-noise.ts). */
export type DeltaTone = "better" | "worse" | "same" | "noise" | "none";

export interface CompareCell {
  /** The run the cell is of (its column). */
  runId: string;
  value: string;
  /** "+12.5 %" against the first run; "" for the first run itself or when either figure is missing. */
  delta: string;
  tone: DeltaTone;
  /** Why a "noise" delta is one: "the runs' seconds varied by ± 45". */
  note?: string;
}

export interface CompareRow {
  key: string;
  label: string;
  cells: CompareCell[];
}

export function deltaTone(percent: number | null | undefined, better: Better, noise: boolean | null = null): DeltaTone {
  if (percent === null || percent === undefined) return "none";
  if (percent === 0) return "same";
  if (noise) return "noise";
  return percent > 0 === (better === "higher") ? "better" : "worse";
}

/** The words after a delta: "within noise" when the change is inside the runs' own spread. */
export const DELTA_WORDS: Record<DeltaTone, string> = {
  better: "better",
  worse: "worse",
  same: "same",
  noise: "within noise",
  none: "",
};

export function formatDelta(percent: number): string {
  const sign = percent > 0 ? "+" : percent < 0 ? "−" : "±";
  return `${sign}${formatDecimal(Math.abs(percent), 1)} %`;
}

/** One row per figure, one cell per run; the first run is the baseline and carries no delta. */
export function compareRows(comparison: RunComparison): CompareRow[] {
  const known = new Set(comparison.runs.flatMap((run) => Object.keys(run.summary)));
  return COMPARED_FIGURES.filter((figure) => known.has(figure.key)).map((figure) => ({
    key: figure.key,
    label: figure.label,
    cells: comparison.runs.map((run, index): CompareCell => {
      const value = run.summary[figure.key] ?? null;
      const percent = index === 0 ? null : (run.deltaPercent[figure.key] ?? null);
      const tone = index === 0 ? "none" : deltaTone(percent, figure.better, run.withinNoise?.[figure.key] ?? null);
      const spread = Math.max(...[comparison.runs[0]!, run].map((compared) => compared.spread?.[figure.key] ?? 0));
      return {
        runId: run.id,
        value: value === null ? "—" : figure.format(value),
        delta: percent === null ? "" : formatDelta(percent),
        tone,
        ...(tone === "noise" ? { note: `the runs' own seconds varied by ± ${figure.format(spread)}` } : {}),
      };
    }),
  }));
}

export interface SloCompareCell {
  /** The run the cell is of (its column). */
  runId: string;
  /** "met · 12 ms", "breached · 240 ms", "no data", or "—" when the run has no such SLO (or no verdict yet). */
  text: string;
  status: "met" | "breached" | "no-data" | "none";
}

export interface SloCompareRow {
  key: string;
  label: string;
  cells: SloCompareCell[];
}

/**
 * The verdict row (each run's outcome) then one row per SLO any run was judged on ("Round trip p99 < 50 ms"),
 * one cell per run, so a plan whose threshold changed between runs shows both rows rather than one mixed one.
 */
export function sloRows(comparison: RunComparison): SloCompareRow[] {
  const verdict: SloCompareRow = {
    key: "verdict",
    label: "Verdict",
    cells: comparison.runs.map((run) => ({
      runId: run.id,
      text: run.outcome ? outcomeLabel(run.outcome) : "—",
      status: run.outcome === "passed" ? "met" : run.outcome ? "breached" : "none",
    })),
  };
  const keys = new Map<string, string>();
  for (const run of comparison.runs)
    for (const slo of run.slos)
      keys.set(`${slo.metric}<${slo.below}`, `${metricName(slo.metric)} < ${formatSloValue(slo.metric, slo.below)}`);
  const rows = [...keys].map(([key, label]) => ({
    key,
    label,
    cells: comparison.runs.map((run): SloCompareCell => {
      const slo = run.slos.find((candidate) => `${candidate.metric}<${candidate.below}` === key);
      if (!slo) return { runId: run.id, text: "—", status: "none" };
      const status = slo.status ?? (slo.passed ? "met" : "breached");
      return {
        runId: run.id,
        text: status === "no-data" ? "no data" : `${status} · ${formatSloValue(slo.metric, slo.value)}`,
        status,
      };
    }),
  }));
  return [verdict, ...rows];
}

/** `?ids=a,b` ⇄ a list of run ids, in order, without blanks or repeats. */
export function parseCompareIds(raw: string | string[] | undefined): string[] {
  const text = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  return [
    ...new Set(
      text
        .split(",")
        .map((id) => id.trim())
        .filter(Boolean),
    ),
  ];
}

export function compareHref(ids: readonly string[]): string {
  return ids.length ? `/compare?ids=${ids.join(",")}` : "/compare";
}
