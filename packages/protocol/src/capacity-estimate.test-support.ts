import type { CapacityEstimate } from "./report";

/**
 * A capacity search's estimate for tests (the protocol's and the API's): valid, 300 clients held, broken at step 4 on
 * the round trip's p99, no steps listed; `more` sets what the test is about.
 */
export function capacityEstimate(more: Partial<CapacityEstimate> = {}): CapacityEstimate {
  return {
    clients: 300,
    valid: true,
    problems: [],
    breakingStep: 4,
    breakingSlos: ["rtt-p99-ms"],
    kneeClients: null,
    usl: null,
    steps: [],
    sentence: "",
    ...more,
  };
}
