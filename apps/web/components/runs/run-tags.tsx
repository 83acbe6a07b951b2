import Link from "next/link";
import { runFilterQuery, EMPTY_RUN_FILTER } from "../../lib/runs/run-filter";

/** A run's tags as chips; each links to the runs list filtered by it unless `linked` is false (reports, share pages). */
export function RunTags({
  tags,
  linked = true,
  testId = "run-tags",
}: {
  tags: readonly string[];
  linked?: boolean;
  testId?: string;
}) {
  if (tags.length === 0) return null;
  return (
    <ul className="chips run-tags" aria-label="Tags" data-testid={testId}>
      {tags.map((tag) => (
        <li key={tag} className="chip" data-tag={tag}>
          {linked ? (
            <Link href={`/runs${runFilterQuery({ ...EMPTY_RUN_FILTER, tag })}`} title={`Runs tagged ${tag}`}>
              {tag}
            </Link>
          ) : (
            tag
          )}
        </li>
      ))}
    </ul>
  );
}

/** A note as typed: plain text whose line breaks are kept. */
export function RunNoteText({ note, testId = "run-note-text" }: { note: string; testId?: string }) {
  return (
    <p className="run-note-text" data-testid={testId}>
      {note}
    </p>
  );
}

interface TagInputProps {
  id: string;
  placeholder: string;
  draft: string;
  onDraft: (draft: string) => void;
  /** Why the typed tag would be refused, shown under the field and tied to it for screen readers. */
  problem: string | null;
  onBlur?: () => void;
  onEnter?: () => void;
}

/** A field for one tag (the run page's new tag, the runs list's filter) with its problem beside it. */
export function TagInput({ id, placeholder, draft, onDraft, problem, onBlur, onEnter }: TagInputProps) {
  return (
    <>
      <input
        id={id}
        type="text"
        placeholder={placeholder}
        value={draft}
        onChange={(event) => onDraft(event.target.value)}
        onBlur={onBlur}
        onKeyDown={(event) => {
          if (event.key === "Enter" && onEnter) onEnter();
        }}
        aria-invalid={problem ? true : undefined}
        aria-describedby={problem ? `${id}-problem` : undefined}
        autoComplete="off"
      />
      {problem && (
        <p className="field-error" id={`${id}-problem`} data-testid={`${id}-problem`}>
          {problem}
        </p>
      )}
    </>
  );
}
