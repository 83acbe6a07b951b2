"use client";

import { useState } from "react";
import { usePendingAction } from "../../hooks/use-pending-action";
import type { RunView } from "@throng/protocol/run";
import { api } from "../../lib/shared/api";
import { ConfirmDialog } from "../ui/confirm-dialog";

/**
 * Aborts a live run after a confirmation, or cancels a queued one (same call: it never took its agents); the API's
 * refusal (e.g. 409, the run already ended) shows in the dialog.
 */
export function AbortRunButton({ run, onAborted }: { run: RunView; onAborted: (run: RunView) => void }) {
  const queued = run.status === "queued";
  const [open, setOpen] = useState(false);
  const aborting = usePendingAction();

  function abort() {
    return aborting.run(async () => {
      const aborted = await api.abortRun(run.id);
      setOpen(false);
      onAborted(aborted);
    });
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
        pending={aborting.pending}
        error={aborting.failure}
        danger
        onConfirm={abort}
        onCancel={() => {
          setOpen(false);
          aborting.clearFailure();
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
