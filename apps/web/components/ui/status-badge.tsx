import type { Tone } from "../../lib/shared/status";

/** A status word in a coloured pill; the word itself carries the meaning, colour only helps. */
export function StatusBadge({ status, tone, testId }: { status: string; tone: Tone; testId?: string }) {
  return (
    <span className={`badge ${tone}`} data-testid={testId} data-status={status}>
      {status}
    </span>
  );
}
