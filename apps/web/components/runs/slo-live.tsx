"use client";

import { useMemo } from "react";
import type { Slo } from "@throng/protocol/plan";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { formatInteger } from "../../lib/shared/format";
import { sloTally } from "../../lib/charts/slo-live";
import { keyedByContent } from "../../lib/shared/content-keys";

/** Each SLO of the plan with the seconds so far that met it and that breached it, while the run goes on. */
export function SloLive({ slos, points }: { slos: readonly Slo[]; points: readonly SeriesPoint[] }) {
  const tally = useMemo(() => sloTally(slos, points), [slos, points]);
  return (
    <section className="panel" aria-labelledby="slo-live-title" data-testid="slo-live">
      <h2 id="slo-live-title">SLOs so far</h2>
      <ul className="slo-live">
        {keyedByContent(tally, (slo) => slo.label).map(({ item: slo, key }) => (
          <li
            key={key}
            data-testid="slo-live-row"
            data-metric={slo.metric}
            className={slo.breached > 0 ? "breached" : "met"}
          >
            <span>{slo.label}</span> <span data-testid="slo-live-met">met {formatInteger(slo.met)} s</span>,{" "}
            <span data-testid="slo-live-breached">breached {formatInteger(slo.breached)} s</span>
          </li>
        ))}
      </ul>
    </section>
  );
}
