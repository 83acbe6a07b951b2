"use client";

import { useState } from "react";
import type { RunView } from "@throng/protocol/run";
import { api } from "../../lib/shared/api";
import { errorMessage } from "../../lib/shared/api-client";
import { ConfirmDialog } from "../ui/confirm-dialog";

/**
 * Aborts a live run after a confirmation, or cancels a queued one (same call: it never took its agents); the API's
 * refusal (e.g. 409, the run already ended) shows in the dialog.
 */
export function AbortRunButton({ run, onAborted }: { run: RunView; onAborted: (run: RunView) => void }) {
  const queued = run.status === "queued";
  const [open, setOpen] = useState(false);
  const [pending, setPending] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  async function abort() {
    setPending(true);
    setFailure(null);
    try {
      const aborted = await api.abortRun(run.id);
      setOpen(false);
      onAborted(aborted);
    } catch (error) {
      setFailure(errorMessage(error));
    } finally {
      setPending(false);
    }
  }

  return (
    <>
      <button className="button danger" type="button" onClick={() => setOpen(true)} data-testid="abort-run">
        {queued ? "Cancel queued run" : "Abort run"}
      </button>
      <ConfirmDialog
        open={open}
        title={queued ? "Take this run out of the queue?" : "Abort this run?"}
        confirmLabel={queued ? "Remove from queue" : "Abort run"}
        pendingLabel="Aborting…"
        pending={pending}
        error={failure}
        danger
        onConfirm={abort}
        onCancel={() => {
          setOpen(false);
          setFailure(null);
        }}
        testId="abort-run-dialog"
      >
        {queued ? (
          <p>
            This run of <strong>{run.planName}</strong> has not started: it leaves the queue and never runs.
          </p>
        ) : (
          <p>
            Every agent stops its load of <strong>{run.planName}</strong> now. The report keeps what was measured so far
            and records who aborted it.
          </p>
        )}
      </ConfirmDialog>
    </>
  );
}
