// A KCP run's own section (run page, report, PDF): what the protocol did each second and over the run, read through
// protocol's kcp-figures.ts so the page, the exports and Compare give the same overhead.
import { kcpFigures, type KcpFigures } from "@throng/protocol/kcp-figures";
import type { KcpCounters, SeriesPoint } from "@throng/protocol/snapshot";
import { formatAxisBytes, type ChartLine } from "../charts/series";
import { formatInteger } from "../shared/format";
import { formatOverhead } from "../compare/compare-table";

/** True when any second carries KCP's counters: the run's target was KCP. */
export function hasKcp(points: readonly SeriesPoint[]): boolean {
  return points.some((point) => point.kcpWireBytesSent !== undefined);
}

const figure = (pick: (kcp: KcpFigures) => number | null) => (point: SeriesPoint) => {
  const kcp = kcpFigures(point);
  return kcp ? pick(kcp) : null;
};
const rounded = (value: number | null) => (value === null ? null : Math.round(value * 10) / 10);

export const KCP_RETRANSMIT_LINES: ChartLine[] = [
  { label: "Retransmissions", color: "#cf222e", value: figure((kcp) => kcp.retransmits) },
  { label: "Fast retransmits", color: "#bc4c00", value: figure((kcp) => kcp.fastRetransmits) },
  { label: "RTO expiries", color: "#8250df", value: figure((kcp) => kcp.rtoExpiries) },
];

export const KCP_OVERHEAD_LINES: ChartLine[] = [
  { label: "Both ways", color: "#0969da", value: figure((kcp) => rounded(kcp.overheadPercent)) },
  { label: "Sent", color: "#1a7f37", dash: [4, 3], value: figure((kcp) => rounded(kcp.overheadSentPercent)) },
  { label: "Received", color: "#bc4c00", dash: [4, 3], value: figure((kcp) => rounded(kcp.overheadReceivedPercent)) },
];

export const KCP_WIRE_LINES: ChartLine[] = [
  { label: "On the wire", color: "#0969da", value: figure((kcp) => kcp.wireBytes) },
  { label: "Payload", color: "#1a7f37", dash: [4, 3], value: figure((kcp) => kcp.payloadBytes) },
];

/**
 * The run's KCP figures in one sentence: "1,204 retransmissions (1,100 fast, 104 RTO expiries); 2.1 MB on the wire
 * for 1.8 MB of payload: +14.2 % overhead (sent +15.0 %, received +13.4 %)." Undefined without KCP counters.
 */
export function kcpSentence(counters: KcpCounters): string | undefined {
  const kcp = kcpFigures(counters);
  if (!kcp) return undefined;
  const overhead = (percent: number | null) => (percent === null ? "—" : formatOverhead(percent));
  return (
    `${formatInteger(kcp.retransmits)} retransmissions (${formatInteger(kcp.fastRetransmits)} fast, ${formatInteger(kcp.rtoExpiries)} RTO expiries); ` +
    `${formatAxisBytes(kcp.wireBytes)} on the wire for ${formatAxisBytes(kcp.payloadBytes)} of payload: ${overhead(kcp.overheadPercent)} overhead ` +
    `(sent ${overhead(kcp.overheadSentPercent)}, received ${overhead(kcp.overheadReceivedPercent)}).`
  );
}
