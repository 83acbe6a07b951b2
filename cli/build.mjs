// Bundles the CI command into one self-contained file: `node cli/dist/throng.mjs run plan.yaml --wait`.
import { chmod } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const outfile = join(here, "dist", "throng.mjs");

// Bundled CommonJS deps (commander) call require(); ESM has none, so make one.
const banner = [
  "#!/usr/bin/env node",
  'import { createRequire as __throngCreateRequire } from "node:module";',
  "const require = __throngCreateRequire(import.meta.url);",
].join("\n");

await build({
  entryPoints: [join(here, "src", "main.ts")],
  outfile,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  banner: { js: banner },
  // Loaded only by `throng script` (and a script plan's run): a native binary per platform, installed beside throng.
  external: ["esbuild"],
  legalComments: "none",
  logLevel: "warning",
});
await chmod(outfile, 0o755);
console.log(`built ${outfile}`);
