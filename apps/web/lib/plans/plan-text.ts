import { parse as parseYaml, stringify as stringifyYaml } from "yaml";
import { MAX_REQUEST_BODY_BYTES } from "@throng/protocol/api";

/** The text formats a plan can be read and written in. */
export type PlanFormat = "json" | "yaml";

export function planToText(input: unknown, format: PlanFormat): string {
  return format === "json" ? `${JSON.stringify(input, null, 2)}\n` : stringifyYaml(input, { indent: 2 });
}

export type TextParse = { ok: true; value: unknown } | { ok: false; error: string };

const MIB = 1024 * 1024;

/**
 * Why a text is too large to be a plan, or null: past what the API takes in one request it can never be saved, so it
 * is refused before it is parsed (a 2.4 MB paste froze the tab for seconds, parsed on every change, to be refused).
 */
export function planTextTooLarge(text: string): string | null {
  // UTF-8 takes at least one byte a UTF-16 unit: the exact count is needed only near the limit.
  if (text.length <= MAX_REQUEST_BODY_BYTES / 3) return null;
  const bytes = new TextEncoder().encode(text).length;
  if (bytes <= MAX_REQUEST_BODY_BYTES) return null;
  const size = (bytes / MIB).toFixed(1);
  return `This plan is ${size} MiB; the API takes at most ${MAX_REQUEST_BODY_BYTES / MIB} MiB, so it is not checked or saved. A plan has at most 20 SLOs and 32 session steps: cut it down.`;
}

/** Parses a plan document; the error says where it broke (YAML's own line and column). */
export function parsePlanText(text: string, format: PlanFormat): TextParse {
  if (text.trim() === "") return { ok: false, error: "The document is empty: paste or import a plan." };
  const tooLarge = planTextTooLarge(text);
  if (tooLarge) return { ok: false, error: tooLarge };
  try {
    const value: unknown = format === "json" ? JSON.parse(text) : parseYaml(text, { prettyErrors: true });
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      return {
        ok: false,
        error: "A plan is an object with name, target, scenario and load; this document is not an object.",
      };
    }
    return { ok: true, value };
  } catch (error) {
    // A pretty YAML error's first line ends with a colon before the quoted source: the reason is that line without it.
    // V8's JSON error quotes a cut of the source ('Unexpected token ',', ..."tionSec": , "ra"... is not valid JSON'):
    // the marker shows where, so the reason keeps only the token.
    // (the cut can hold line breaks, so it goes before the message is cut to its first line).
    const reason =
      error instanceof Error
        ? (error.message.replace(/^(Unexpected token '[^']*'), [\s\S]*$/, "$1").split("\n")[0] ?? "").replace(/:$/, "")
        : String(error);
    return { ok: false, error: `Not valid ${format === "json" ? "JSON" : "YAML"}: ${reason}` };
  }
}

/** JSON or YAML from a file name; anything else is tried as YAML, which also reads JSON. */
export function formatOfFile(name: string): PlanFormat {
  return /\.json$/i.test(name) ? "json" : "yaml";
}

/** `lobby-smoke-test.plan.yaml` from "Lobby smoke test". */
export function exportFileName(planName: string, format: PlanFormat): string {
  const slug = planName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 60);
  return `${slug || "plan"}.plan.${format === "json" ? "json" : "yaml"}`;
}

/** "Copy of Lobby", "Copy of Lobby (2)" …: a name the user's other plans do not have yet. */
export function cloneName(name: string, taken: readonly string[]): string {
  const base = `Copy of ${name}`.slice(0, 120);
  const names = new Set(taken);
  if (!names.has(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base.slice(0, 112)} (${n})`;
    if (!names.has(candidate)) return candidate;
  }
}
