import Link from "next/link";
import { runFilterQuery, EMPTY_RUN_FILTER } from "../lib/run-filter";

/** A run's tags as chips; each links to the runs list filtered by it unless `linked` is false (reports, share pages). */
export function RunTags({ tags, linked = true, testId = "run-tags" }: { tags: readonly string[]; linked?: boolean; testId?: string }) {
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
