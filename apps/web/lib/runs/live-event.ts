import { LiveMessage } from "@throng/protocol/run";

export interface LiveEvent {
  /** Per-run message number when the API sends one (`{ seq, message }`), else null. */
  seq: number | null;
  message: LiveMessage;
}

/**
 * Reads one server-sent event of GET /api/runs/:id/live: a bare LiveMessage, or one wrapped in a
 * numbered `{ seq, message }` envelope. Anything else is ignored (null) rather than breaking the page.
 */
export function parseLiveEvent(data: string): LiveEvent | null {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof json === "object" && json !== null && "message" in json && "seq" in json) {
    const { seq, message } = json as { seq: unknown; message: unknown };
    const parsed = LiveMessage.safeParse(message);
    return parsed.success ? { seq: typeof seq === "number" ? seq : null, message: parsed.data } : null;
  }
  const parsed = LiveMessage.safeParse(json);
  return parsed.success ? { seq: null, message: parsed.data } : null;
}

/** True when a numbered message does not follow the previous one: something was missed. */
export function missedMessages(previous: number | null, seq: number | null): boolean {
  return previous !== null && seq !== null && seq !== previous + 1;
}
