"use client";

import { formatDuration, formatTimeOfDay } from "../../lib/shared/format";
import { MARKER_COLOURS } from "../../lib/charts/run-annotations";
import type { TimeMarker } from "../../lib/charts/series";
import { keyedByContent } from "../../lib/shared/content-keys";

interface ChartAnnotationsProps {
  testId: string;
  title: string;
  markers: readonly TimeMarker[];
  /** The run's first second: marker times read as "+12 s" from it; without it, as times of day. */
  start: number | null;
  active: number | null;
  onActive: (index: number | null) => void;
}

/** "+12 s" after the run's start, or the time of day without one. */
const when = (t: number, start: number | null) =>
  start === null ? formatTimeOfDay(t) : `+${formatDuration(Math.max(0, t - start))}`;

/**
 * Under a chart: its markers as a list (the plot's legend of annotations), each focusable, and the whole words of the
 * one hovered on the plot or focused here, so none has to fit on the plot beside its line.
 */
export function ChartAnnotations({ testId, title, markers, start, active, onActive }: ChartAnnotationsProps) {
  if (markers.length === 0) return null;
  const shown = active === null ? null : markers[active];
  return (
    <div className="chart-annotations">
      <ul aria-label={`Annotations on ${title}`} data-testid={`${testId}-annotations`}>
        {keyedByContent(markers, (m) => `${m.kind}-${m.t}-${m.label}`).map(({ item: marker, key, index }) => (
          <li key={key}>
            <button
              type="button"
              className={index === active ? "chart-annotation active" : "chart-annotation"}
              data-kind={marker.kind}
              aria-pressed={index === active}
              onMouseEnter={() => onActive(index)}
              onMouseLeave={() => onActive(null)}
              onFocus={() => onActive(index)}
              onBlur={() => onActive(null)}
            >
              <span
                className="chart-annotation-swatch"
                style={{ background: MARKER_COLOURS[marker.kind] }}
                aria-hidden="true"
              />
              {when(marker.t, start)} {marker.label}
            </button>
          </li>
        ))}
      </ul>
      <p className="chart-annotation-words" data-testid={`${testId}-annotation-words`} aria-live="polite">
        {shown
          ? `${when(shown.t, start)}: ${shown.detail ?? shown.label}`
          : "Point at a marker, or focus one here, to read it."}
      </p>
    </div>
  );
}
