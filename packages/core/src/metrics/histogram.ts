// The HDR histogram helpers live with the snapshot merge in @throng/wire (shared with the standalone agent); the
// control plane's code and tests reach them here, as they always have.
export {
  addEncoded,
  emptyHistogram,
  encodeValues,
  latencyPercentiles,
  type LatencyPercentiles,
} from "@throng/wire/snapshot-histogram";
