// The script path's per-second metric hand-off on its own: one second of 160 bots' receipts (24,000, 0.5–20 ms) into a
// script tally, then its flush and the structured clone postMessage makes of it, 30 times; prints the median and max.
//   node --import tsx agent/bench/script/flush-cost.ts
import { createScriptTally } from "../../src/scripts/script-tally";
import { recordBroadcast } from "../../src/scenarios/broadcast-streams";
const tally = createScriptTally([{ name: "join-ms", kind: "histogram" }], () => {});
const streams = new Map();
const times: number[] = [];
let seq = 0;
for (let second = 0; second < 30; second += 1) {
  // One second of 160 players × 10 Hz × 15 receivers: 24,000 receipts with 0.5–20 ms latencies.
  for (let i = 0; i < 24_000; i += 1)
    recordBroadcast(
      tally.metrics,
      streams,
      i % 160,
      seq + Math.floor(i / 160),
      1_000_000,
      1_000_000 + 500 + ((i * 7919) % 20_000),
    );
  seq += 150;
  const t = performance.now();
  const part = tally.flush();
  const structured = structuredClone(part);
  times.push(performance.now() - t);
  void structured;
}
times.sort((a, b) => a - b);
console.log(
  `flush + structured clone per second: median ${times[15]!.toFixed(3)} ms, max ${times.at(-1)!.toFixed(3)} ms`,
);
