// The run page's table of network cohorts (plan.network, docs/networks.md): each cohort's clients, round trips,
// loss and retransmissions from the run's summary, read as the SLO judge reads them.
import type { RunSummary } from "@throng/protocol/run";
import { measuredOfSummary } from "@throng/protocol/slo-judge";
import { NETWORK_PATH_WORDS } from "@throng/protocol/cohort-report";
import { formatInteger, formatMs } from "../shared/format";
import { formatRatioPercent } from "./scenario-view";

export interface CohortRow {
  name: string;
  clients: string;
  rttP50: string;
  rttP99: string;
  /** Messages (or broadcasts) lost of those expected: the judge's loss-rate over the cohort's clients. */
  loss: string;
  /** Packets its network conditions dropped, of those that met them. */
  dropped: string;
  /** KCP's retransmissions, or TCP's own on the kernel path; "—" where neither was counted. */
  retransmits: string;
  /** How its conditions were applied; "above TCP" is flagged, since TCP then saw the rig's round trip. */
  applied: string;
  appliedAboveStream: boolean;
}

/** One row per cohort, in the plan's order (`order`, plan.network's names) and then any other the summary carries. */
export function cohortRows(summary: RunSummary | null | undefined, order: readonly string[] = []): CohortRow[] {
  const cohorts = summary?.cohorts ?? {};
  const names = [
    ...order.filter((name) => name in cohorts),
    ...Object.keys(cohorts).filter((name) => !order.includes(name)),
  ];
  const measured = summary ? measuredOfSummary(summary) : () => null;
  return names.map((name) => {
    const c = cohorts[name]!;
    const retransmits =
      c.kcpRetransmits !== undefined
        ? `${formatInteger(c.kcpRetransmits)} (KCP)`
        : c.tcpRetransmits !== undefined
          ? `${formatInteger(c.tcpRetransmits)} (TCP)`
          : "—";
    const packets = c.networkPackets ?? 0;
    return {
      name,
      clients: formatInteger(c.peakClients),
      rttP50: formatMs(c.rttP50Ms),
      rttP99: formatMs(c.rttP99Ms),
      loss: formatRatioPercent(measured("loss-rate", name)),
      dropped:
        packets > 0 ? `${formatRatioPercent((c.networkDropped ?? 0) / packets)} of ${formatInteger(packets)}` : "—",
      retransmits,
      applied: NETWORK_PATH_WORDS[c.applied],
      appliedAboveStream: c.applied === "above-stream",
    };
  });
}
