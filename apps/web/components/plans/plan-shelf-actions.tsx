"use client";

import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { usePendingAction } from "../../hooks/use-pending-action";
import type { PlanView } from "@throng/protocol/api";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { ConfirmDialog } from "../ui/confirm-dialog";

/**
 * Archive (hide from the plan list, runs kept) or restore a plan at once, since either is undone by the other;
 * delete only after a confirmation, and only a plan that never ran (the API says to archive one with runs).
 * Each change moves the plan between the plan lists' shelves, so every cached list is read again before the page
 * moves on (also the ones no page shows now: the next visit to Plans must not show the plan where it was).
 */
export function PlanShelfActions({ plan }: { plan: PlanView }) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const refreshLists = () => queryClient.invalidateQueries({ queryKey: queryKeys.planLists, refetchType: "all" });
  const { pending, failure, run, clearFailure } = usePendingAction();
  const [deleting, setDeleting] = useState(false);

  function act(action: () => Promise<unknown>, after: () => unknown) {
    return run(async () => {
      await action();
      await after();
    });
  }

  const archived = !!plan.archivedAt;
  return (
    <>
      <button
        className="button"
        type="button"
        disabled={pending}
        onClick={() =>
          act(
            () => (archived ? api.restorePlan(plan.id) : api.archivePlan(plan.id)),
            () =>
              Promise.all([
                refreshLists(),
                queryClient.invalidateQueries({ queryKey: queryKeys.plan(plan.id), exact: true }),
              ]),
          )
        }
        data-testid={archived ? "restore-plan" : "archive-plan"}
      >
        {archived ? "Restore" : "Archive"}
      </button>
      <button
        className="button danger"
        type="button"
        disabled={pending}
        onClick={() => setDeleting(true)}
        data-testid="delete-plan"
      >
        Delete
      </button>
      {failure && !deleting && (
        <p className="inline-error" role="alert" data-testid="plan-shelf-error">
          {failure}
        </p>
      )}
      <ConfirmDialog
        open={deleting}
        title="Delete this plan?"
        confirmLabel="Delete plan"
        pendingLabel="Deleting…"
        pending={pending}
        error={failure}
        danger
        onConfirm={() =>
          act(
            () => api.deletePlan(plan.id),
            async () => {
              await refreshLists();
              router.push("/plans");
            },
          )
        }
        onCancel={() => {
          setDeleting(false);
          clearFailure();
        }}
        testId="delete-plan-dialog"
      >
        <p>
          <strong>{plan.name}</strong> and its versions are deleted for good. A plan that has runs cannot be deleted:
          archive it instead, which hides it from the plan list and keeps its runs.
        </p>
      </ConfirmDialog>
    </>
  );
}
