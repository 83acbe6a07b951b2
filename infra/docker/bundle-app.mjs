// Bundles the app image's three entry points (api, workers, migrate) into dist/ with esbuild, as the agent is
// bundled, so the image carries these files and a few external packages instead of the workspace's node_modules.
//   node infra/docker/bundle-app.mjs <outdir>     (the image puts <outdir> at /app/dist, migrations at /app/migrations)
import { cp, readFile } from "node:fs/promises";
import path from "node:path";
import { build } from "esbuild";

// Kept out of the bundles and copied beside them (<outdir>/node_modules): playwright-core finds its own files on disk.
const EXTERNAL = ["playwright-core"];

const outdir = process.argv[2];
if (!outdir) {
  console.error("usage: node infra/docker/bundle-app.mjs <outdir>");
  process.exit(2);
}

// Bundled CommonJS deps call require(); ESM has none, so make one.
const banner = [
  'import { createRequire as __throngCreateRequire } from "node:module";',
  "const require = __throngCreateRequire(import.meta.url);",
].join("\n");

await build({
  entryPoints: { api: "apps/api/src/main.ts", workers: "workers/src/main.ts", migrate: "db/src/migrate-main.ts" },
  outdir,
  outExtension: { ".js": ".mjs" },
  bundle: true,
  splitting: true,
  platform: "node",
  target: "node20",
  format: "esm",
  banner: { js: banner },
  // Besides EXTERNAL, optional add-ons their packages load only if installed (ws's speed-ups, pg's native driver).
  external: [...EXTERNAL, "bufferutil", "utf-8-validate", "pg-native"],
  legalComments: "none",
  logLevel: "warning",
});
// A copy of the installed package is the whole install only while it has no dependencies of its own.
for (const name of EXTERNAL) {
  const from = path.join("node_modules", name);
  const manifest = JSON.parse(await readFile(path.join(from, "package.json"), "utf8"));
  if (Object.keys(manifest.dependencies ?? {}).length > 0) {
    throw new Error(
      `${name} now has dependencies: install it with them (npm install --omit=dev) instead of copying it`,
    );
  }
  await cp(from, path.join(outdir, "node_modules", name), { recursive: true });
}
console.log(`bundled api, workers and migrate into ${outdir}, with ${EXTERNAL.join(", ")} beside them`);
