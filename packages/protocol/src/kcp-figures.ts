import type { KcpCounters } from "./snapshot";

/**
 * KCP's overhead: how much more crossed the wire than the payload it carried, in percent (wire ÷ payload − 1, so
 * 1,180 wire bytes for 1,000 payload bytes is 18). Headers, ACKs, probes and retransmissions count; null without
 * payload. The seed's finding ("8–10% more bandwidth") reads the same way.
 */
export function kcpOverheadPercent(wireBytes: number, payloadBytes: number): number | null {
  if (payloadBytes <= 0) return null;
  return ((wireBytes - payloadBytes) / payloadBytes) * 100;
}

/** A second's or a run's KCP figures, read once for the run page, the report, the exports and Compare. */
export interface KcpFigures {
  retransmits: number;
  fastRetransmits: number;
  rtoExpiries: number;
  /** Bytes on the wire, both ways (UDP payloads: KCP headers, ACKs and retransmissions included). */
  wireBytes: number;
  /** Payload bytes, both ways, each byte once. */
  payloadBytes: number;
  /** Both ways together, and each way; null where no payload went that way. */
  overheadPercent: number | null;
  overheadSentPercent: number | null;
  overheadReceivedPercent: number | null;
}

/** The KCP figures of a second, a run or a cohort; null when it carries no KCP counters (not a KCP target). */
export function kcpFigures(counters: KcpCounters): KcpFigures | null {
  if (counters.kcpWireBytesSent === undefined) return null;
  const n = (value: number | undefined) => value ?? 0;
  const wireSent = n(counters.kcpWireBytesSent);
  const wireReceived = n(counters.kcpWireBytesReceived);
  const payloadSent = n(counters.kcpPayloadBytesSent);
  const payloadReceived = n(counters.kcpPayloadBytesReceived);
  return {
    retransmits: n(counters.kcpRetransmits),
    fastRetransmits: n(counters.kcpFastRetransmits),
    rtoExpiries: n(counters.kcpRtoExpiries),
    wireBytes: wireSent + wireReceived,
    payloadBytes: payloadSent + payloadReceived,
    overheadPercent: kcpOverheadPercent(wireSent + wireReceived, payloadSent + payloadReceived),
    overheadSentPercent: kcpOverheadPercent(wireSent, payloadSent),
    overheadReceivedPercent: kcpOverheadPercent(wireReceived, payloadReceived),
  };
}

/** An overhead as "+18.2%"; "-" without payload. */
function overheadText(percent: number | null): string {
  if (percent === null) return "-";
  return `${percent >= 0 ? "+" : ""}${percent.toFixed(1)}%`;
}

/**
 * A KCP run's protocol figures in one line, for the agent's and the CLI's summaries: retransmissions by cause, and
 * bytes on the wire against payload bytes each way. Undefined when the figures hold no KCP counters.
 */
export function kcpSummaryText(figures: KcpCounters): string | undefined {
  const kcp = kcpFigures(figures);
  if (!kcp) return undefined;
  const n = (value: number | undefined) => value ?? 0;
  const sent = `${n(figures.kcpWireBytesSent)} B in ${n(figures.kcpDatagramsSent)} datagrams for ${n(figures.kcpPayloadBytesSent)} B of payload (${overheadText(kcp.overheadSentPercent)})`;
  const received = `${n(figures.kcpWireBytesReceived)} B in ${n(figures.kcpDatagramsReceived)} datagrams for ${n(figures.kcpPayloadBytesReceived)} B (${overheadText(kcp.overheadReceivedPercent)})`;
  return `retransmits ${kcp.retransmits} (fast ${kcp.fastRetransmits}, RTO expiries ${kcp.rtoExpiries}); wire sent ${sent}, received ${received}`;
}
