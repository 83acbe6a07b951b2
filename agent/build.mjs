// Bundles the agent CLI into one self-contained file: `node agent/dist/throng-agent.mjs`.
import { chmod } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { buildNativeIo, buildNetworkQueue } from "./native/build.mjs";
import { nodeBundleOptions, WS_SPEED_UPS } from "./node-bundle.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, "dist", "throng-agent.mjs");
// What each engine process runs (src/engine/engine-main.ts): the engine without the CLI, so its heap starts smaller.
const engineOutfile = join(here, "dist", "throng-engine.mjs");

const options = { ...nodeBundleOptions({ executable: true, external: WS_SPEED_UPS }), logLevel: "warning" };
await Promise.all([
  build({ ...options, entryPoints: [join(here, "src", "cli", "main.ts")], outfile }),
  build({ ...options, entryPoints: [join(here, "src", "engine", "engine-main.ts")], outfile: engineOutfile }),
]);
await chmod(outfile, 0o755);
console.log(`built ${outfile} and ${engineOutfile}`);
// The native I/O path beside it (dist/throng-io.node); without it the agent uses Node's sockets, and says so.
const nativeFailure = buildNativeIo();
if (nativeFailure) console.warn(`native I/O not built, the agent will use Node's sockets: ${nativeFailure}`);
else console.log("built the native I/O addon beside it");
// The network cohorts' kernel path (dist/throng-netq.node); without it a TCP or WebSocket cohort's delay is applied above TCP and its loss refused.
const netqFailure = buildNetworkQueue();
if (netqFailure)
  console.warn(`network queue addon not built, TCP and WebSocket cohorts cannot use the kernel path: ${netqFailure}`);
else console.log("built the network queue addon beside it");
