// The per-room tally's own cost (agent/src/metrics/room-tally.ts, PROTOCOL.md §5.3): CPU per received broadcast and
// per snapshot's report, for 1,000 and 10,000 rooms of 20. `npm run bench:rooms`. CPU time, so a busy machine only
// stretches the wall clock; still, run it twice and compare.
import { createRoomTally } from "../src/metrics/room-tally";

const ROOM_SIZE = 20;

function cpuMicros(fn: () => void): number {
  const before = process.cpuUsage();
  fn();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

for (const roomCount of [1_000, 10_000]) {
  const tally = createRoomTally();
  const broadcasts = 2_000_000;
  let seed = 1;
  const next = () => {
    seed = (seed * 1_103_515_245 + 12_345) & 0x7fff_ffff;
    return seed;
  };
  // One second of updates at 20 Hz for every player: each update expects room size − 1 broadcasts.
  const expectUs = cpuMicros(() => {
    for (let update = 0; update < roomCount * ROOM_SIZE * 20; update += 1)
      tally.expected(update % roomCount, ROOM_SIZE - 1, ROOM_SIZE);
  });
  const receiveUs = cpuMicros(() => {
    for (let i = 0; i < broadcasts; i += 1) tally.received(next() % roomCount, 500 + (next() % 20_000));
  });
  // The report after every room received (all percentiles read again), then after 1 % of them did.
  const fullReportUs = cpuMicros(() => tally.report());
  for (let i = 0; i < roomCount / 100; i += 1) tally.received(i, 1_000);
  const quietReportUs = cpuMicros(() => tally.report());
  const bytes = JSON.stringify(tally.report()).length;
  console.log(
    `${roomCount.toLocaleString("en-US")} rooms of ${ROOM_SIZE}: ${((receiveUs * 1000) / broadcasts).toFixed(1)} ns CPU per received broadcast, ` +
      `${((expectUs * 1000) / (roomCount * ROOM_SIZE * 20)).toFixed(1)} ns per update sent, ` +
      `report ${(fullReportUs / 1000).toFixed(2)} ms with every room changed, ${(quietReportUs / 1000).toFixed(2)} ms with 1 % changed, ${bytes.toLocaleString("en-US")} bytes of JSON; ` +
      `heap ${(process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)} MiB, array buffers ${(process.memoryUsage().arrayBuffers / 2 ** 20).toFixed(1)} MiB`,
  );
}
