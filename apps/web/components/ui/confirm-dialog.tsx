"use client";

import { useEffect, useId, useRef, type ReactNode } from "react";
import { ErrorAlert } from "./error-alert";

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  pendingLabel: string;
  pending: boolean;
  /** What the API said when the action failed; shown inside the dialog, where the action was asked for. */
  error: string | null;
  danger?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
  testId?: string;
}

/**
 * A modal question before something that cannot be undone (revoke an agent, abort a run). The native dialog
 * keeps focus inside, closes on Escape and gives focus back to the button that opened it. Focus starts on
 * Cancel, so a stray Enter does not confirm.
 */
export function ConfirmDialog(props: ConfirmDialogProps) {
  const { open, title, children, confirmLabel, pendingLabel, pending, error, danger, onConfirm, onCancel, testId } =
    props;
  const ref = useRef<HTMLDialogElement>(null);
  const cancelRef = useRef<HTMLButtonElement>(null);
  const titleId = useId();

  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (open && !dialog.open) {
      dialog.showModal();
      cancelRef.current?.focus();
    } else if (!open && dialog.open) {
      dialog.close();
    }
  }, [open]);

  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      data-testid={testId}
      onCancel={(event) => {
        event.preventDefault();
        if (!pending) onCancel();
      }}
    >
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <ErrorAlert error={error} />
      <div className="form-actions">
        <button ref={cancelRef} className="button" type="button" onClick={onCancel} disabled={pending}>
          Cancel
        </button>
        <button
          className={`button ${danger ? "danger" : "primary"}`}
          type="button"
          onClick={onConfirm}
          disabled={pending}
          data-testid="confirm"
        >
          {pending ? pendingLabel : confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
