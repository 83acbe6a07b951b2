// The run page's note and tag editing (issue 18): what a typed tag becomes, and which edits the API would refuse,
// checked with the API's own schemas so the message matches a server refusal.
import type { FieldError } from "@throng/protocol/errors";
import { RUN_TAGS_MAX, RunNote, RunTag } from "@throng/protocol/run-notes";

export type TagEdit = { ok: true; tags: string[] } | { ok: false; error: string };
export type TypedTag = { ok: true; tag: string } | { ok: false; error: string };

/** A typed tag as the API stores it: trimmed, lowercased, inner spaces as hyphens ("Release 1.4" → "release-1.4"). */
export function normaliseTag(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, "-");
}

/** A typed tag normalised and checked with the API's schema (the run page's field, the runs list's filter). */
export function typedTag(text: string): TypedTag {
  const tag = normaliseTag(text);
  if (tag === "") return { ok: false, error: "type a tag first, e.g. nightly" };
  const parsed = RunTag.safeParse(tag);
  return parsed.success
    ? { ok: true, tag }
    : { ok: false, error: parsed.error.issues[0]?.message ?? "not a valid tag" };
}

/** The tag set with `text` added, or why it cannot be: not a slug, already there, or one too many. */
export function withTag(tags: readonly string[], text: string): TagEdit {
  const typed = typedTag(text);
  if (!typed.ok) return typed;
  const { tag } = typed;
  if (tags.includes(tag)) return { ok: false, error: `${tag} is already a tag of this run` };
  if (tags.length >= RUN_TAGS_MAX)
    return { ok: false, error: `a run has at most ${RUN_TAGS_MAX} tags; remove one first` };
  return { ok: true, tags: [...tags, tag] };
}

export function withoutTag(tags: readonly string[], tag: string): string[] {
  return tags.filter((candidate) => candidate !== tag);
}

/** Why the API would refuse this note, or null; the draft is sent as typed (its line breaks are the formatting). */
export function noteProblem(note: string): string | null {
  const parsed = RunNote.safeParse(note);
  return parsed.success ? null : (parsed.error.issues[0]?.message ?? "not a valid note");
}

/** An API 400 on PATCH /api/runs/:id in the words of the field it names ("tag 2: …", "note: …"). */
export function notesRefusal(fields: readonly FieldError[], fallback: string): string {
  const first = fields[0];
  if (!first) return fallback;
  const tag = /^tags\.(\d+)$/.exec(first.path);
  const field = tag
    ? `tag ${Number(tag[1]) + 1}`
    : first.path === "tags"
      ? "tags"
      : first.path === "note"
        ? "note"
        : first.path;
  return `${field}: ${first.message}`;
}
