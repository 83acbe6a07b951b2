// Types of node-bundle.mjs for the TypeScript that imports it (cli/src/script-bundle.ts).
import type { BuildOptions } from "esbuild";

/** ws's optional native speed-ups, left out of every bundle. */
export declare const WS_SPEED_UPS: string[];

/** esbuild's options for one self-contained ES module that Node 20 runs; `executable` puts a shebang first. */
export declare function nodeBundleOptions(options?: { executable?: boolean; external?: string[] }): BuildOptions;
