// Bundles the CI command into one self-contained file: `node cli/dist/throng.mjs run plan.yaml --wait`.
import { chmod } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
// The agent's bundle options: the CI command is one Node ES module the same way.
import { nodeBundleOptions } from "../agent/node-bundle.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, "dist", "throng.mjs");

await build({
  // Loaded only by `throng script` (and a script plan's run): a native binary per platform, installed beside throng.
  ...nodeBundleOptions({ executable: true, external: ["esbuild"] }),
  entryPoints: [join(here, "src", "main.ts")],
  outfile,
  logLevel: "warning",
});
await chmod(outfile, 0o755);
console.log(`built ${outfile}`);
