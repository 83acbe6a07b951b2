// Run ids inside the API's sentences ("busy with run bab81732-5577-…; the run is queued") as short links, so a queued
// run's notice and events point at the run that holds its agents instead of spelling out a 36-character id.
import { shortId } from "../shared/format";

export type LinkedPart = { text: string } | { runId: string; label: string };

const UUID = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
/** "run <id>" or "runs <id>, <id>": only ids the sentence calls runs become links (an agent's id stays text). */
const RUNS = new RegExp(`\\bruns? (${UUID}(?:, ${UUID})*)`, "gi");
const ONE = new RegExp(UUID, "gi");

/** The text cut into plain parts and run ids, in order; text without run ids is one plain part. */
export function linkRunIds(text: string): LinkedPart[] {
  const parts: LinkedPart[] = [];
  let at = 0;
  for (const match of text.matchAll(RUNS)) {
    const ids = match[1]!;
    const start = match.index! + match[0].length - ids.length;
    for (const id of ids.matchAll(ONE)) {
      const idStart = start + id.index!;
      if (idStart > at) parts.push({ text: text.slice(at, idStart) });
      parts.push({ runId: id[0], label: shortId(id[0]) });
      at = idStart + id[0].length;
    }
  }
  if (at < text.length) parts.push({ text: text.slice(at) });
  return parts;
}
