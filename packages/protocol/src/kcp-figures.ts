import type { KcpCounters } from "./snapshot";

/** How much more crossed the wire than the payload it carried, as "+18.2%"; "-" without payload. */
function overhead(wire: number, payload: number): string {
  if (payload <= 0) return "-";
  const percent = ((wire - payload) / payload) * 100;
  return `${percent >= 0 ? "+" : ""}${percent.toFixed(1)}%`;
}

/**
 * A KCP run's protocol figures in one line, for the agent's and the CLI's summaries: retransmissions by cause, and
 * bytes on the wire against payload bytes each way. Undefined when the figures hold no KCP counters.
 */
export function kcpSummaryText(figures: KcpCounters): string | undefined {
  if (figures.kcpWireBytesSent === undefined) return undefined;
  const n = (value: number | undefined) => value ?? 0;
  const sent = `${n(figures.kcpWireBytesSent)} B in ${n(figures.kcpDatagramsSent)} datagrams for ${n(figures.kcpPayloadBytesSent)} B of payload (${overhead(n(figures.kcpWireBytesSent), n(figures.kcpPayloadBytesSent))})`;
  const received = `${n(figures.kcpWireBytesReceived)} B in ${n(figures.kcpDatagramsReceived)} datagrams for ${n(figures.kcpPayloadBytesReceived)} B (${overhead(n(figures.kcpWireBytesReceived), n(figures.kcpPayloadBytesReceived))})`;
  return `retransmits ${n(figures.kcpRetransmits)} (fast ${n(figures.kcpFastRetransmits)}, RTO expiries ${n(figures.kcpRtoExpiries)}); wire sent ${sent}, received ${received}`;
}
