// The x range a run chart draws: the seconds it has (or the planned window), with half a second either side so the
// first and last seconds' points, and a lone first second, are drawn whole inside the plot rather than on its edge.
import { xRange } from "./series";

const EDGE_SECONDS = 0.5;

export function plotXRange(xs: ArrayLike<number>, span?: readonly [number, number] | null): [number, number] | null {
  const range = xRange(xs, span);
  return range && [range[0] - EDGE_SECONDS, range[1] + EDGE_SECONDS];
}
