// A run's note and tags (issue 18): what the team writes about a run after the fact, and how it finds runs again.
import { z } from "zod";

/** Bounds the database also checks (db/migrations/018-run-notes-tags.sql); a note is a paragraph or two, not a log. */
export const RUN_NOTE_MAX_LENGTH = 4000;
export const RUN_TAGS_MAX = 20;
export const RUN_TAG_MAX_LENGTH = 40;

const TAG_PATTERN = /^[a-z0-9][a-z0-9._-]*$/;

/** One tag: a lowercase slug ("release-1.4", "nightly"), the same in a list filter, a run view and an edit. */
export const RunTag = z
  .string()
  .min(1, "a tag cannot be empty")
  .max(RUN_TAG_MAX_LENGTH, `a tag is at most ${RUN_TAG_MAX_LENGTH} characters`)
  .regex(TAG_PATTERN, "a tag is lowercase letters, digits, . _ - and starts with a letter or digit, e.g. release-1.4");
export type RunTag = z.infer<typeof RunTag>;

export const RunNote = z.string().max(RUN_NOTE_MAX_LENGTH, `the note is at most ${RUN_NOTE_MAX_LENGTH} characters`);

/**
 * PATCH /api/runs/:id from the run page and `throng run --note/--tag`: a new note, a new tag set, or both; a field
 * left out keeps its value. Tags replace the whole set (a chip removed is a tag not sent); repeats count once.
 */
export const RunNotesPatch = z
  .object({
    note: RunNote.optional(),
    tags: z.array(RunTag).max(RUN_TAGS_MAX, `a run has at most ${RUN_TAGS_MAX} tags`).optional(),
  })
  .strict()
  .refine((patch) => patch.note !== undefined || patch.tags !== undefined, {
    message: "send a note, tags or both",
    path: ["note"],
  })
  // The same rule for the OpenAPI document (JSON Schema cannot run the refinement): strict, so one property is one of the two.
  .meta({ minProperties: 1 });
export type RunNotesPatch = z.infer<typeof RunNotesPatch>;

/** A run's note and tags in its view (GET /api/runs/:id, list items, reports), with who changed them last. */
export const RunNotesView = z.object({
  note: RunNote.default(""),
  tags: z.array(RunTag).default([]),
  /** As the audit log names actors; null until someone edits them. */
  notesEditedBy: z.string().nullable().default(null),
  /** That person's name, when `notesEditedBy` is a member's email. */
  notesEditedByName: z.string().nullable().optional(),
  notesEditedAt: z.string().nullable().default(null),
});
export type RunNotesView = z.infer<typeof RunNotesView>;

/** The tag set a patch stores: each tag once, in the order first given. */
export function distinctTags(tags: readonly string[]): string[] {
  return [...new Set(tags)];
}
