// Where a plan's YAML is wrong, as editor markers: the YAML parser's own errors at their position, then the plan
// schema's problems (the same zod check and the same words as the form's error summary) on the key or value they name.
import { PlanSpec } from "@throng/protocol/plan";
import { isMap, isScalar, isSeq, parseDocument, type Document } from "yaml";
import { draftFromInput, errorsByPath, issuesToFields } from "./plan-draft";
import { problemLabel } from "./plan-problem";

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

const NOT_AN_OBJECT = "A plan is an object with name, target, scenario and load; this document is not an object.";

type Range = { from: number; to: number };

/** The range a path's problem is drawn on: a scalar's value, else the key naming it; a missing key marks its parent. */
function rangeOf(doc: Document, path: string): Range {
  let node: unknown = doc.contents;
  let key: unknown = null;
  for (const part of path === "form" ? [] : path.split(".")) {
    let next: { key: unknown; value: unknown } | undefined;
    if (isMap(node)) next = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === part);
    else if (isSeq(node) && /^\d+$/.test(part) && Number(part) < node.items.length) next = { key, value: node.items[Number(part)] };
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

/** Every problem of a plan's YAML text, each where it is; none for a valid plan. */
export function planYamlMarkers(text: string): TextMarker[] {
  if (text.trim() === "") return [marker(text, { from: 0, to: 0 }, "form", "The document is empty: paste or import a plan.")];
  const doc = parseDocument(text, { prettyErrors: true });
  if (doc.errors.length > 0) {
    return doc.errors.map((error) => marker(text, { from: error.pos[0], to: error.pos[1] }, "form", `Not valid YAML: ${(error.message.split("\n")[0] ?? "").replace(/:$/, "")}`));
  }
  const value: unknown = doc.toJS();
  if (typeof value !== "object" || value === null || Array.isArray(value)) return [marker(text, { from: 0, to: text.length }, "form", NOT_AN_OBJECT)];
  const result = PlanSpec.safeParse(value);
  if (result.success) return [];
  const draft = draftFromInput(value);
  return Object.entries(errorsByPath(issuesToFields(result.error.issues))).map(([path, message]) => {
    const label = problemLabel(path, draft);
    return marker(text, rangeOf(doc, path), path, label ? `${label}: ${message}` : message);
  });
}
