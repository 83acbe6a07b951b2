import type { RunView } from "@throng/protocol/run";
import { RunLinkedText } from "./run-linked-text";

/** While a run waits in the queue: why (its agents are busy, and with which run), and that it starts by itself. */
export function RunQueuedNotice({ run }: { run: RunView }) {
  if (run.status !== "queued") return null;
  const reason = run.events.filter((event) => event.kind === "queued").at(-1)?.message;
  return (
    <p className="notice" role="status" data-testid="run-queued">
      {reason ? (
        <>
          <RunLinkedText text={reason} />.
        </>
      ) : (
        "Queued: the run starts as soon as its agents take it."
      )}{" "}
      Cancel it to take it out of the queue.
    </p>
  );
}
