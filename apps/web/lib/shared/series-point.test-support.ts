// The protocol's own tests build their seconds the same way: one fixture for both.
export { idleSeriesPoint, seriesPoint } from "@throng/protocol/series-point.test-support";
