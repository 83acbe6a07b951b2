// The floor `bench:agent --only script` measures Throng's script path against: the same bots module
// (colyseus-bots.mjs) driven from one plain Node process, as a team would without Throng: setInterval for the
// sends, each broadcast's latency (receipt − the sender's stamp, one clock) into an HDR histogram, nothing else.
// Starts --clients bots evenly over --ramp s, waits --warmup s, measures --seconds s, and prints one JSON line:
// broadcasts/s, CPU (process.cpuUsage, all threads) and its µs per broadcast, latency p50/p99/max in ms, and the
// p50/p99 of ctx.measure's times (the join) over the whole run.
//
//   node plain-bots.mjs --bots colyseus-bots.mjs --url http://127.0.0.1:PORT [--clients 160] [--room-size 16]
//                       [--hz 10] [--ramp 2] [--warmup 3] [--seconds 10]
import { pathToFileURL } from "node:url";
import { resolve } from "node:path";
import { Int32Histogram } from "hdr-histogram-js";
import { argReader, measureWindow } from "../bare/bare-common.mjs";

const arg = argReader();
const clients = Number(arg("clients", "160"));
const roomSize = Number(arg("room-size", "16"));
const parameters = { url: arg("url"), hz: Number(arg("hz", "10")), roomSize };
const rampSec = Number(arg("ramp", "2"));
const { default: bot } = await import(pathToFileURL(resolve(arg("bots"))).href);

// The agent's own precision: 1 µs to 60 s, 3 significant digits.
const latency = new Int32Histogram(1, 60_000_000, 3);
/** ctx.measure's times (the bots time their join), over the whole run. */
const joins = new Int32Histogram(1, 60_000_000, 3);
let measuring = false;
let broadcasts = 0;
let errors = 0;
const stop = new AbortController();
const nowUs = () => Math.round((performance.timeOrigin + performance.now()) * 1000);

function contextFor(client) {
  return {
    client,
    room: Math.floor(client / roomSize),
    parameters,
    signal: stop.signal,
    measure(_name, work) {
      const started = performance.now();
      return Promise.resolve(typeof work === "function" ? work() : work).then((value) => {
        joins.recordValue(Math.max(1, Math.round((performance.now() - started) * 1000)));
        return value;
      });
    },
    broadcast(_sender, _seq, sentAtUs) {
      broadcasts += 1;
      latency.recordValue(Math.min(60_000_000, Math.max(1, nowUs() - sentAtUs)));
    },
    count() {},
    error: () => (errors += 1),
    every(ms, fn) {
      const timer = setInterval(fn, ms);
      stop.signal.addEventListener("abort", () => clearInterval(timer), { once: true });
      return () => clearInterval(timer);
    },
  };
}

for (let client = 0; client < clients; client += 1) {
  setTimeout(
    () => void Promise.resolve(bot(contextFor(client))).catch(() => (errors += 1)),
    (client * rampSec * 1000) / clients,
  );
}

measureWindow(
  rampSec + Number(arg("warmup", "3")),
  Number(arg("seconds", "10")),
  () => {
    // Called at the window's start and end: at the start, what the ramp and warm-up measured is dropped.
    if (!measuring) {
      measuring = true;
      latency.reset();
    }
    return { broadcasts, errors };
  },
  (counted, wallSec, cpuUs) => {
    const ms = (p) => latency.getValueAtPercentile(p) / 1000;
    const result = {
      broadcastsPerSec: counted.broadcasts / wallSec,
      errors: counted.errors,
      cpuPercent: (cpuUs / 1e6 / wallSec) * 100,
      usPerBroadcast: cpuUs / Math.max(1, counted.broadcasts),
      p50Ms: ms(50),
      p99Ms: ms(99),
      maxMs: latency.maxValue / 1000,
      joinP50Ms: joins.getValueAtPercentile(50) / 1000,
      joinP99Ms: joins.getValueAtPercentile(99) / 1000,
    };
    stop.abort();
    console.log(JSON.stringify(result));
    setTimeout(() => process.exit(0), 200).unref();
  },
);
