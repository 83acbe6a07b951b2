import type { CapacityEstimate } from "@throng/protocol/report";
import { CHART, capacityChartModel } from "../../lib/reports/capacity-chart";
import { formatInteger } from "../../lib/shared/format";
import { formatAxisCount } from "../../lib/charts/series";

const MARK_COLOURS = { breaking: "#cf222e", knee: "#9a6700", trusted: "#57606a" } as const;
/** The USL fit's line, its trusted part and its extrapolation alike, kept inside the plot. */
const FIT_LINE = { fill: "none", stroke: "#0969da", clipPath: "url(#capacity-plot-area)" } as const;

/** Throughput per step against clients, the USL curve, and the breaking step, knee and trusted range marked. */
export function CapacityChart({ capacity }: { capacity: CapacityEstimate }) {
  const model = capacityChartModel(capacity);
  const { width, height, left, right, top, bottom } = CHART;
  const description = `Throughput by clients: ${model.dots.map((d) => `${d.clients} clients ${Math.round(d.throughput)} msg/s${d.held ? "" : " (broke an SLO)"}`).join("; ")}.`;
  return (
    <figure className="capacity-chart" data-testid="capacity-chart" data-steps={model.dots.length}>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-label={description}>
        {model.yTicks.map((tick) => (
          <g key={`y${tick.value}`}>
            <line x1={left} x2={width - right} y1={tick.y} y2={tick.y} stroke="#d1d9e0" />
            <text x={left - 6} y={tick.y + 4} textAnchor="end" fontSize="11" fill="#59636e">
              {formatAxisCount(tick.value)}
            </text>
          </g>
        ))}
        {model.xTicks.map((tick) => (
          <text
            key={`x${tick.value}`}
            x={tick.x}
            y={height - bottom + 16}
            textAnchor="middle"
            fontSize="11"
            fill="#59636e"
          >
            {formatAxisCount(tick.value)}
          </text>
        ))}
        <text x={(left + width - right) / 2} y={height - 6} textAnchor="middle" fontSize="12" fill="#1f2328">
          clients
        </text>
        <text
          x={14}
          y={(top + height - bottom) / 2}
          textAnchor="middle"
          fontSize="12"
          fill="#1f2328"
          transform={`rotate(-90 14 ${(top + height - bottom) / 2})`}
        >
          messages/s
        </text>
        {model.marks.map((mark, index) => (
          <g key={mark.kind} data-testid={`capacity-mark-${mark.kind}`}>
            <line
              x1={mark.x}
              x2={mark.x}
              y1={top}
              y2={height - bottom}
              stroke={MARK_COLOURS[mark.kind]}
              strokeDasharray="5 4"
              strokeWidth="1.5"
            />
            {/* Labels past the middle go left of their line, so the last one is not cut at the edge. */}
            <text
              x={mark.x > width / 2 ? mark.x - 4 : mark.x + 4}
              textAnchor={mark.x > width / 2 ? "end" : "start"}
              y={top + 12 + index * 14}
              fontSize="11"
              fill={MARK_COLOURS[mark.kind]}
            >
              {mark.label}
            </text>
          </g>
        ))}
        <clipPath id="capacity-plot-area">
          <rect x={left} y={top} width={width - left - right} height={height - top - bottom} />
        </clipPath>
        {model.curve && <path d={model.curve} {...FIT_LINE} strokeWidth="2" data-testid="capacity-usl-curve" />}
        {/* Past the trusted range the curve is extrapolation, not a measurement: dashed, and clipped to the plot. */}
        {model.extrapolation && (
          <path
            d={model.extrapolation}
            {...FIT_LINE}
            strokeWidth="1.5"
            strokeDasharray="6 5"
            opacity="0.7"
            data-testid="capacity-usl-extrapolation"
          />
        )}
        {model.dots.map((dot) => {
          const paint = {
            fill: dot.held ? "#1a7f37" : "#cf222e",
            stroke: dot.saturated ? "#9a6700" : "#fff",
            strokeWidth: dot.saturated ? 3 : 1.5,
          };
          // The 9-pixel square a settle step is drawn as, and a fine step's diamond turned from it.
          const square = { x: dot.x - 4.5, y: dot.y - 4.5, width: 9, height: 9 };
          const title = (
            // biome-ignore lint/correctness/useJsxKeyInIterable: a child of the keyed shape below, not an item of the list.
            <title>{`step ${dot.step + 1}${dot.phase ? ` (${dot.retry ? "first level again, after it broke" : dot.phase})` : ""}: ${dot.clients} clients, ${Math.round(dot.throughput)} msg/s${dot.held ? "" : ", broke an SLO"}${dot.saturated ? ", agent saturated" : ""}`}</title>
          );
          // A fine step is a diamond, so the search's second pass below the break reads apart from its coarse climb;
          // a settle step (the server draining its backlog, not part of the estimate) is a hollow square.
          if (dot.phase === "settle") {
            return (
              <rect
                key={dot.step}
                data-phase="settle"
                {...square}
                {...paint}
                fill="#fff"
                stroke={paint.fill}
                strokeWidth={2}
              >
                {title}
              </rect>
            );
          }
          return dot.phase === "fine" ? (
            <rect key={dot.step} data-phase="fine" {...square} transform={`rotate(45 ${dot.x} ${dot.y})`} {...paint}>
              {title}
            </rect>
          ) : (
            <circle key={dot.step} data-phase={dot.phase} cx={dot.x} cy={dot.y} r="5" {...paint}>
              {title}
            </circle>
          );
        })}
      </svg>
      <figcaption className="muted small">
        <span className="legend-dot ok" /> step held its SLOs · <span className="legend-dot bad" /> step broke one ·{" "}
        <span className="legend-line" /> Universal Scalability Law fit
        {model.trustedToClients !== null &&
          ` where it is trusted (up to ${formatInteger(model.trustedToClients)} clients)`}
        {model.extrapolation && (
          <>
            {" · "}
            <svg width="20" height="6" aria-hidden="true">
              <line x1="0" x2="20" y1="3" y2="3" stroke="#0969da" strokeWidth="1.5" strokeDasharray="6 5" />
            </svg>{" "}
            the fit beyond that: extrapolation, not measured
          </>
        )}{" "}
        · dashed vertical lines: breaking step, knee, and how far the fit may be trusted
        {model.dots.some((dot) => dot.phase === "fine") &&
          " · circles: the search's coarse steps, diamonds: its fine steps below the first break"}
        {model.dots.some((dot) => dot.phase === "settle") &&
          " · hollow squares: settle steps back at the last level that held, while the server recovered (not judged for the estimate)"}
      </figcaption>
    </figure>
  );
}
