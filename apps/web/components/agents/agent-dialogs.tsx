"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import type { AgentView } from "@throng/protocol/api";
import { api } from "../../lib/shared/api";
import { ApiError, errorMessage } from "../../lib/shared/api-client";
import { queryKeys } from "../../lib/shared/query-keys";
import {
  labelErrorsFromApi,
  labelsFromRows,
  rowsFromLabels,
  type LabelErrors,
  type LabelRow,
} from "../../lib/shared/labels";
import { ConfirmDialog } from "../ui/confirm-dialog";
import { LabelEditor } from "../ui/label-editor";
import { BusyButton } from "../ui/busy-button";

/**
 * A change to an agent whose success refreshes the cached agents list (the Agents page and Home) before the caller
 * hears of it, so a closed dialog shows the list as it now is.
 */
function useAgentMutation<V, T>(change: (variables: V) => Promise<T>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: change,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.agents }),
  });
}

/** What either of an agent's dialogs is opened with: the agent, and how to close it with nothing changed. */
interface AgentDialogProps {
  agent: AgentView;
  onClose: () => void;
}

/** Edits one agent's whole label set (PUT /api/agents/:id/labels); errors land on the rows the API names. */
export function AgentLabelsDialog({ agent, onClose, onSaved }: AgentDialogProps & { onSaved: () => void }) {
  const ref = useRef<HTMLDialogElement>(null);
  const [rows, setRows] = useState<LabelRow[]>(() => rowsFromLabels(agent.labels));
  const [errors, setErrors] = useState<LabelErrors>({});
  const saving = useAgentMutation((labels: Record<string, string>) => api.setAgentLabels(agent.id, labels));
  const pending = saving.isPending || saving.isSuccess;

  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const checked = labelsFromRows(rows);
    if (!checked.ok) {
      setErrors(checked.errors);
      return;
    }
    saving.mutate(checked.labels, {
      onSuccess: onSaved,
      onError: (error) =>
        setErrors(labelErrorsFromApi(rows, error instanceof ApiError ? error.fields : [], errorMessage(error))),
    });
  }

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby="labels-dialog-title"
      data-testid="agent-labels-dialog"
      onCancel={(event) => {
        event.preventDefault();
        if (!pending) onClose();
      }}
    >
      <form onSubmit={save} noValidate>
        <h2 id="labels-dialog-title">Labels of {agent.hostname}</h2>
        <p className="muted">
          Plans pick agents by label, e.g. region=eu-west. Saving replaces the agent&apos;s labels with these.
        </p>
        <LabelEditor idPrefix="agent" legend="Labels" rows={rows} errors={errors} onChange={setRows} />
        <div className="form-actions">
          <button className="button" type="button" onClick={onClose} disabled={pending}>
            Cancel
          </button>
          <BusyButton busy={pending} busyText="Saving…" testId="save-labels">
            Save labels
          </BusyButton>
        </div>
      </form>
    </dialog>
  );
}

/** Asks before revoking: the agent is disconnected, its credential stops working, and it leaves the list. */
export function RevokeAgentDialog({ agent, onClose, onRevoked }: AgentDialogProps & { onRevoked: () => void }) {
  const revoking = useAgentMutation((_: undefined) => api.revokeAgent(agent.id));
  const pending = revoking.isPending || revoking.isSuccess;
  const failure = revoking.isError ? errorMessage(revoking.error) : null;
  const revoke = () => revoking.mutate(undefined, { onSuccess: onRevoked });

  return (
    <ConfirmDialog
      open
      title={`Revoke ${agent.hostname}?`}
      confirmLabel="Revoke agent"
      pendingLabel="Revoking…"
      pending={pending}
      error={failure}
      danger
      onConfirm={revoke}
      onCancel={onClose}
      testId="revoke-agent-dialog"
    >
      <p>
        The agent is disconnected at once and its credential stops working. To use this machine again, enrol it with a
        new token.
      </p>
      {agent.currentRunId && (
        <p className="notice">It is taking part in a run now; that run loses this agent&apos;s load.</p>
      )}
    </ConfirmDialog>
  );
}
