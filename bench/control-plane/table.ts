import type { StageBreakdown } from "./stages";

/** One fleet size's figures, all from what the simulated agents and the browser saw (plus /proc for the api). */
export interface StepResult {
  agents: number;
  /** Snapshots acknowledged per second, from the first send to the last ack. */
  ingestedPerSec: number;
  /** Agent send → first browser receipt of a point holding that agent's second; null past the drain window. */
  p50Ms: number | null;
  p99Ms: number | null;
  apiCpuPercent: number;
  apiCpuMsPerSnapshot: number;
  apiPeakRssMb: number;
  sent: number;
  /** Never acknowledged within the drain window. */
  notAcked: number;
  /** Never seen by the browser within the drain window. */
  notLive: number;
  /** Seconds of the stored series missing some agent's snapshot. */
  incompleteSeconds: number;
  loadAverage: number;
  run: string;
  /** Where the time from send to browser went, from the api's debug lines. */
  stages: StageBreakdown;
}

export function table(results: StepResult[]): string {
  const header = [
    "agents",
    "offered snap/s",
    "ingested snap/s",
    "p50 ms",
    "p99 ms",
    "api CPU %",
    "api CPU ms/snap",
    "api RSS MB",
    "sent",
    "not acked",
    "not live",
    "incomplete s",
    "load avg",
    "run",
  ];
  const ms = (n: number | null) => (n === null ? "> drain" : n.toFixed(0));
  const rows = results.map((r) => [
    String(r.agents),
    String(r.agents),
    r.ingestedPerSec.toFixed(0),
    ms(r.p50Ms),
    ms(r.p99Ms),
    r.apiCpuPercent.toFixed(0),
    r.apiCpuMsPerSnapshot.toFixed(1),
    r.apiPeakRssMb.toFixed(0),
    String(r.sent),
    String(r.notAcked),
    String(r.notLive),
    String(r.incompleteSeconds),
    r.loadAverage.toFixed(1),
    r.run,
  ]);
  const line = (cells: string[]) => `| ${cells.join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}
