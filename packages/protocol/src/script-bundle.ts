import { z } from "zod";

/**
 * Script bundles: the JS module a `scenario: { kind: script, script: { sha256 } }` plan runs on its agents. The
 * control plane stores each bundle once per organisation under the SHA-256 of its UTF-8 bytes; agents fetch it
 * over their control connection and check the hash before running it (docs/protocols.md, "Scripted clients").
 */

/** Largest bundle the API stores: an esbuild bundle of a game SDK plus its client is well under this. */
export const SCRIPT_BUNDLE_MAX_BYTES = 5 * 1024 * 1024;

export const ScriptSha256 = z.string().regex(/^[0-9a-f]{64}$/, "must be a SHA-256: 64 lower-case hex digits");

/** Bytes of `text` in UTF-8 (the hashed form), without encoding it: protocol stays browser-safe. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** POST /api/scripts body: a single-file script or an esbuild bundle, as text. */
export const UploadScript = z.object({
  /** Shown in lists and the plan form, e.g. "arena-bots.mjs". */
  name: z.string().trim().min(1, "give the script a name").max(100, "at most 100 characters"),
  source: z
    .string()
    .min(1, "the script is empty")
    .refine(
      (source) => utf8Length(source) <= SCRIPT_BUNDLE_MAX_BYTES,
      `must be at most ${SCRIPT_BUNDLE_MAX_BYTES / 1024 / 1024} MiB`,
    ),
});
export type UploadScript = z.infer<typeof UploadScript>;

/** GET /api/scripts items (newest first), and POST /api/scripts's answer. */
export const ScriptSummary = z.object({
  sha256: ScriptSha256,
  name: z.string(),
  sizeBytes: z.number().int().min(0),
  createdAt: z.string(),
});
export type ScriptSummary = z.infer<typeof ScriptSummary>;

export const ScriptList = z.object({ scripts: z.array(ScriptSummary) });
export type ScriptList = z.infer<typeof ScriptList>;

/** GET /api/scripts/:sha256: the bundle with its source. */
export const ScriptView = ScriptSummary.extend({ source: z.string() });
export type ScriptView = z.infer<typeof ScriptView>;
