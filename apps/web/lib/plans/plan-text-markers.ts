// Where a plan's YAML or JSON is wrong, as editor markers: the parser's own errors at their position, then the plan
// schema's problems (the same zod check and the same words as the form's error summary) on the key or value they name.
// JSON is YAML's flow style, so the YAML parser finds a path's key and value in either format.
import { jsonLanguage } from "@codemirror/lang-json";
import { PlanSpec } from "@throng/protocol/plan";
import { isMap, isScalar, isSeq, parseDocument, type Document } from "yaml";
import { draftFromInput, errorsByPath, issuesToFields } from "./plan-draft";
import { problemLabel } from "./plan-problem";
import { parsePlanText, planTextTooLarge, type PlanFormat } from "./plan-text";

export interface TextMarker {
  /** Character offsets in the text, as an editor marks them. */
  from: number;
  to: number;
  /** 1-based line of `from`. */
  line: number;
  /** The plan path it is about (`load.clients`), or "form" for the whole document. */
  path: string;
  message: string;
}

type Range = { from: number; to: number };

/** The range a path's problem is drawn on: a scalar's value, else the key naming it; a missing key marks its parent. */
function rangeOf(doc: Document, path: string): Range {
  let node: unknown = doc.contents;
  let key: unknown = null;
  for (const part of path === "form" ? [] : path.split(".")) {
    let next: { key: unknown; value: unknown } | undefined;
    if (isMap(node)) next = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === part);
    else if (isSeq(node) && /^\d+$/.test(part) && Number(part) < node.items.length)
      next = { key, value: node.items[Number(part)] };
    if (!next) break;
    key = next.key;
    node = next.value;
  }
  const keyRange = (key as { range?: [number, number] } | null)?.range;
  const nodeRange = (node as { range?: [number, number] } | null)?.range;
  if (isScalar(node) && nodeRange && nodeRange[1] > nodeRange[0]) return { from: nodeRange[0], to: nodeRange[1] };
  if (keyRange) return { from: keyRange[0], to: keyRange[1] };
  return nodeRange ? { from: nodeRange[0], to: nodeRange[0] } : { from: 0, to: 0 };
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset && i < text.length; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function marker(text: string, range: Range, path: string, message: string): TextMarker {
  const from = Math.min(range.from, text.length);
  return { from, to: Math.max(from, Math.min(range.to, text.length)), line: lineAt(text, from), path, message };
}

/**
 * Where JSON stops parsing: the first error node of CodeMirror's own JSON grammar, which lands where JSON.parse stops
 * (V8's JSON.parse names no position for an unexpected token, in Node at least); undefined for text that parses.
 */
function jsonErrorAt(text: string): number | undefined {
  let at: number | undefined;
  jsonLanguage.parser.parse(text).iterate({
    enter: (node) => {
      if (node.type.isError) at = node.from;
      return at === undefined;
    },
  });
  return at;
}

/** A document that does not parse as a plan: each YAML error where it is, JSON's where it stops, else the whole text. */
function syntaxMarkers(text: string, format: PlanFormat, doc: Document, error: string): TextMarker[] {
  if (format === "yaml" && doc.errors.length > 0) {
    return doc.errors.map((found) =>
      marker(
        text,
        { from: found.pos[0], to: found.pos[1] },
        "form",
        `Not valid YAML: ${(found.message.split("\n")[0] ?? "").replace(/:$/, "")}`,
      ),
    );
  }
  const at = format === "json" ? jsonErrorAt(text) : undefined;
  // An empty document, or one that parses but is not an object, is wrong as a whole.
  return [marker(text, at === undefined ? { from: 0, to: text.length } : { from: at, to: at + 1 }, "form", error)];
}

/** Every problem of a plan's YAML or JSON text, each where it is, in the error summary's words; none for a valid plan. */
export function planTextMarkers(text: string, format: PlanFormat): TextMarker[] {
  const tooLarge = planTextTooLarge(text);
  if (tooLarge) return [marker(text, { from: 0, to: 0 }, "form", tooLarge)];
  const doc = parseDocument(text, { prettyErrors: true });
  const parsed = parsePlanText(text, format);
  if (!parsed.ok) return syntaxMarkers(text, format, doc, parsed.error);
  const result = PlanSpec.safeParse(parsed.value);
  if (result.success) return [];
  const draft = draftFromInput(parsed.value);
  return Object.entries(errorsByPath(issuesToFields(result.error.issues))).map(([path, message]) => {
    const label = problemLabel(path, draft);
    return marker(text, rangeOf(doc, path), path, label ? `${label}: ${message}` : message);
  });
}
