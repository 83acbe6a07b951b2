"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { api } from "../../lib/shared/api";
import { errorMessage } from "../../lib/shared/api-client";

/**
 * Starts a run of the plan and opens it; a refusal (e.g. no agent online) shows beside the button. As large as the
 * buttons beside it: small in a list's row, full size among the plan page's actions (it is the page's main one).
 */
export function StartRunButton({
  planId,
  planName,
  small = false,
}: {
  planId: string;
  planName: string;
  small?: boolean;
}) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const errorId = `start-run-error-${planId}`;

  async function start() {
    setPending(true);
    setFailure(null);
    try {
      const run = await api.startRun(planId);
      router.push(`/runs/${run.id}`);
    } catch (error) {
      setFailure(errorMessage(error));
      setPending(false);
    }
  }

  return (
    <div>
      <button
        className={small ? "button primary small" : "button primary"}
        type="button"
        onClick={start}
        disabled={pending}
        aria-describedby={failure ? errorId : undefined}
        aria-label={`Start run of ${planName}`}
        data-testid="start-run"
      >
        {pending ? "Starting…" : "Start run"}
      </button>
      {failure && (
        <p className="inline-error" id={errorId} role="alert" data-testid="start-run-error">
          {failure}
        </p>
      )}
    </div>
  );
}
