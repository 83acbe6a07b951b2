-- Run notes and tags (issue 18): a free-text note and a set of lowercase slug tags per run, with who changed them
-- last and when. The bounds repeat packages/protocol/src/run-notes.ts so no other writer can store more.
alter table runs add column note text not null default '';
alter table runs add column tags text[] not null default '{}';
alter table runs add column notes_edited_by text;
alter table runs add column notes_edited_at timestamptz;
alter table runs add constraint runs_note_length check (char_length(note) <= 4000);
alter table runs add constraint runs_tags_bounds check (
  cardinality(tags) <= 20 and array_position(tags, null) is null
  and array_to_string(tags, ' ') ~ '^([a-z0-9][a-z0-9._-]{0,39}( |$))*$'
);
-- GET /api/runs?tag= finds a tag's runs through this index (tags @> array[tag]); the org's own condition then
-- keeps only the caller's runs, and the list's org indexes order them.
create index runs_tags_idx on runs using gin (tags);
