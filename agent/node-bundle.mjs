// How the agent's own bundle is built, shared by what else Throng bundles for Node: the CI command (cli/build.mjs)
// and the scripts agents import (cli/src/script-bundle.ts), so all of them load the same way.

// Bundled CommonJS deps (ws, commander, a game SDK) call require(); ESM has none, so make one.
const REQUIRE_SHIM = [
  'import { createRequire as __throngCreateRequire } from "node:module";',
  "const require = __throngCreateRequire(import.meta.url);",
].join("\n");

/** ws loads these native speed-ups only if installed and works without them: left out of every bundle. */
export const WS_SPEED_UPS = ["bufferutil", "utf-8-validate"];

/**
 * esbuild's options for one self-contained ES module that Node 20 runs, with a require() for its CommonJS
 * dependencies; `executable` puts a shebang first, for a bundle that is a command.
 */
export function nodeBundleOptions({ executable = false, external = [] } = {}) {
  return {
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    banner: { js: executable ? `#!/usr/bin/env node\n${REQUIRE_SHIM}` : REQUIRE_SHIM },
    external,
    legalComments: "none",
  };
}
