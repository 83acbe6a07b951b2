import Link from "next/link";
import { linkRunIds } from "../../lib/runs/run-links";
import { keyedByContent } from "../../lib/shared/content-keys";

/** An API sentence with the runs it names as short links to them (the full id in the link's title). */
export function RunLinkedText({ text }: { text: string }) {
  return (
    <>
      {keyedByContent(linkRunIds(text), (part) => ("runId" in part ? part.runId : part.text)).map(
        ({ item: part, key }) =>
          "runId" in part ? (
            <Link key={key} href={`/runs/${part.runId}`} title={part.runId} data-testid="run-link">
              {part.label}
            </Link>
          ) : (
            <span key={key}>{part.text}</span>
          ),
      )}
    </>
  );
}
