import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { SCRIPT_BUNDLE_MAX_BYTES } from "@throng/protocol/script-bundle";
import { nodeBundleOptions, WS_SPEED_UPS } from "../../agent/node-bundle.mjs";
import { ScriptBundleError } from "./errors";

/** A script as the API stores it: one ES module, its SHA-256 (hex of the UTF-8 bytes) and its size. */
export interface ScriptBundle {
  source: string;
  sha256: string;
  sizeBytes: number;
}

export function scriptBundleOf(source: string): ScriptBundle {
  const bytes = Buffer.from(source, "utf8");
  if (bytes.length > SCRIPT_BUNDLE_MAX_BYTES) {
    throw new ScriptBundleError(
      `the script is ${bytes.length} bytes; the API stores at most ${SCRIPT_BUNDLE_MAX_BYTES} (${SCRIPT_BUNDLE_MAX_BYTES / 1024 / 1024} MiB): drop unused dependencies`,
    );
  }
  return { source, sha256: createHash("sha256").update(bytes).digest("hex"), sizeBytes: bytes.length };
}

/** esbuild is loaded only when a script is bundled: `throng run` of other plans never needs it. */
async function loadEsbuild(): Promise<typeof import("esbuild")> {
  try {
    return await import("esbuild");
  } catch {
    throw new ScriptBundleError(
      "bundling a script needs esbuild: install it beside throng (npm install esbuild), or bundle yourself and pass --no-bundle",
    );
  }
}

/**
 * Bundles a JS/TS entry and every npm package it imports into one ES module for Node 20 (how agents import it), as
 * the agent's own bundle is built. Errors name the file and line esbuild stopped at.
 */
export async function bundleScript(entry: string): Promise<ScriptBundle> {
  const esbuild = await loadEsbuild();
  try {
    const result = await esbuild.build({
      ...nodeBundleOptions({ external: WS_SPEED_UPS }),
      entryPoints: [entry],
      write: false,
      logLevel: "silent",
    });
    return scriptBundleOf(result.outputFiles[0]!.text);
  } catch (error) {
    const failures = (
      error as { errors?: { text: string; location?: { file: string; line: number; column: number } | null }[] }
    ).errors;
    if (!failures?.length) throw new ScriptBundleError(`cannot bundle ${entry}: ${(error as Error).message}`);
    const lines = failures
      .slice(0, 5)
      .map((e) => (e.location ? `${e.location.file}:${e.location.line}:${e.location.column}: ${e.text}` : e.text));
    throw new ScriptBundleError(`cannot bundle ${entry}:\n  ${lines.join("\n  ")}`);
  }
}

/** A file uploaded as it is (--no-bundle): already a bundle, or a single-file module without imports. */
export async function readScriptFile(path: string): Promise<ScriptBundle> {
  try {
    return scriptBundleOf(await readFile(path, "utf8"));
  } catch (error) {
    if (error instanceof ScriptBundleError) throw error;
    throw new ScriptBundleError(
      `cannot read script ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}
