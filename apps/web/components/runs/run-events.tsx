import type { RunView } from "@throng/protocol/run";
import { formatDateTime, formatDuration } from "../../lib/shared/format";
import { eventText, offsetSeconds } from "../../lib/runs/run-events";
import { RunLinkedText } from "./run-linked-text";
import { StatusBadge } from "../ui/status-badge";
import { keyedByContent } from "../../lib/shared/content-keys";

/** What happened during the run, in order: stages, agents lost and back, an abort. */
export function RunEvents({ run }: { run: RunView }) {
  if (run.events.length === 0) return null;
  const events = [...run.events].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return (
    <div data-testid="run-events">
      <h3>Events</h3>
      <ol className="events">
        {keyedByContent(events, (e) => `${e.at}-${e.kind}-${e.message}`).map(({ item: event, key }) => {
          const offset = offsetSeconds(run, event.at);
          const text = eventText(event.kind);
          return (
            <li key={key} data-testid="run-event" data-kind={event.kind}>
              <time dateTime={event.at} title={formatDateTime(event.at)} className="event-time">
                {offset === null ? formatDateTime(event.at) : `+${formatDuration(offset)}`}
              </time>
              <StatusBadge status={text.word} tone={text.tone} />
              <span>
                <RunLinkedText text={event.message} />
              </span>
            </li>
          );
        })}
      </ol>
    </div>
  );
}
