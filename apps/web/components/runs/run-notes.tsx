"use client";

import { useState, type FormEvent } from "react";
import type { RunView } from "@throng/protocol/run";
import type { RunNotesPatch } from "@throng/protocol/run-notes";
import { ApiError, errorMessage } from "../../lib/shared/api-client";
import { formatDateTime } from "../../lib/shared/format";
import { personName } from "../../lib/runs/people";
import { noteProblem, notesRefusal, withTag, withoutTag } from "../../lib/runs/run-notes";
import { runsApi } from "../../lib/runs/runs-api";
import { can } from "../../lib/shared/settings-permissions";
import { RunNoteText, RunTags, TagInput } from "./run-tags";
import { useMe } from "../shell/session-gate";
import { BusyButton } from "../ui/busy-button";

/** The run page's note and tags: read by everyone, edited by those who may (run.annotate), saved at once. */
export function RunNotes({ run, onSaved }: { run: RunView; onSaved: (run: RunView) => void }) {
  const edits = can(useMe().role, "run.annotate");
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  /** Sends one change; answers whether it was saved, so an editor keeps its draft when it was not. */
  async function save(patch: RunNotesPatch): Promise<boolean> {
    setPending(true);
    setFailure(null);
    try {
      onSaved(await runsApi.annotate(run.id, patch));
      return true;
    } catch (error) {
      setFailure(
        error instanceof ApiError && error.status === 400
          ? notesRefusal(error.fields, error.message)
          : errorMessage(error),
      );
      return false;
    } finally {
      setPending(false);
    }
  }

  if (!edits && run.note === "" && run.tags.length === 0) return null;
  return (
    <section className="panel run-notes" aria-labelledby="run-notes-title" data-testid="run-notes">
      <h2 id="run-notes-title">Note and tags</h2>
      {edits ? <TagEditor tags={run.tags} pending={pending} onSave={save} /> : <RunTags tags={run.tags} />}
      {edits ? (
        <NoteEditor note={run.note} pending={pending} onSave={save} />
      ) : (
        run.note && <RunNoteText note={run.note} />
      )}
      {failure && (
        <p className="field-error" role="alert" data-testid="run-notes-error">
          {failure}
        </p>
      )}
      {run.notesEditedBy && run.notesEditedAt && (
        <p className="muted small" data-testid="run-notes-edited">
          Last edited by {personName(run.notesEditedBy, run.notesEditedByName)}, {formatDateTime(run.notesEditedAt)}
        </p>
      )}
    </section>
  );
}

type Save = (patch: RunNotesPatch) => Promise<boolean>;

/** Chips with a remove button each, and a field that adds one (Enter or Add). */
function TagEditor({ tags, pending, onSave }: { tags: string[]; pending: boolean; onSave: Save }) {
  const [draft, setDraft] = useState("");
  const [problem, setProblem] = useState<string | null>(null);

  async function add(event: FormEvent) {
    event.preventDefault();
    const edit = withTag(tags, draft);
    if (!edit.ok) return setProblem(edit.error);
    setProblem(null);
    if (await onSave({ tags: edit.tags })) setDraft("");
  }

  return (
    <div className="run-tag-editor">
      <ul className="chips run-tags" aria-label="Tags" data-testid="run-tags">
        {tags.length === 0 && <li className="muted small">No tags yet.</li>}
        {tags.map((tag) => (
          <li key={tag} className="chip" data-tag={tag}>
            {tag}
            <button
              className="chip-remove"
              type="button"
              aria-label={`Remove tag ${tag}`}
              disabled={pending}
              onClick={() => void onSave({ tags: withoutTag(tags, tag) })}
            >
              ×
            </button>
          </li>
        ))}
      </ul>
      <form className="inline-form" onSubmit={add} aria-label="Add a tag">
        <label htmlFor="run-tag-new" className="sr-only">
          New tag
        </label>
        <TagInput
          id="run-tag-new"
          placeholder="add a tag, e.g. release-1.4"
          draft={draft}
          onDraft={setDraft}
          problem={problem}
        />
        <button className="button small" type="submit" disabled={pending}>
          Add tag
        </button>
      </form>
    </div>
  );
}

/** The note as text, or a text area while editing; the draft is kept apart from live updates of the run. */
function NoteEditor({ note, pending, onSave }: { note: string; pending: boolean; onSave: Save }) {
  const [draft, setDraft] = useState<string | null>(null);
  const problem = draft === null ? null : noteProblem(draft);

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (draft === null || problem) return;
    if (await onSave({ note: draft })) setDraft(null);
  }

  if (draft === null) {
    return (
      <div className="run-note">
        {note ? (
          <RunNoteText note={note} />
        ) : (
          <p className="muted">No note yet: what was this run for, what changed, what did you see?</p>
        )}
        <button className="button small" type="button" onClick={() => setDraft(note)} data-testid="run-note-edit">
          {note ? "Edit note" : "Add a note"}
        </button>
      </div>
    );
  }
  return (
    <form className="run-note" onSubmit={submit}>
      <label htmlFor="run-note-draft">Note</label>
      <textarea
        id="run-note-draft"
        rows={5}
        value={draft}
        onChange={(event) => setDraft(event.target.value)}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? "run-note-problem run-note-hint" : "run-note-hint"}
      />
      <p className="muted small" id="run-note-hint">
        A line that begins with a time since the run&apos;s start (0:42, 1:05:00, 12 s, 2 min) is marked at that time on
        every chart.
      </p>
      {problem && (
        <p className="field-error" id="run-note-problem">
          {problem}
        </p>
      )}
      <div className="form-actions">
        <BusyButton className="button primary small" busy={pending} busyText="Saving…" disabled={Boolean(problem)}>
          Save note
        </BusyButton>
        <button className="button small" type="button" onClick={() => setDraft(null)} disabled={pending}>
          Cancel
        </button>
      </div>
    </form>
  );
}
