import Link from "next/link";
import { linkRunIds } from "../../lib/runs/run-links";

/** An API sentence with the runs it names as short links to them (the full id in the link's title). */
export function RunLinkedText({ text }: { text: string }) {
  return (
    <>
      {linkRunIds(text).map((part, index) =>
        "runId" in part ? (
          <Link key={index} href={`/runs/${part.runId}`} title={part.runId} data-testid="run-link">
            {part.label}
          </Link>
        ) : (
          <span key={index}>{part.text}</span>
        ),
      )}
    </>
  );
}
