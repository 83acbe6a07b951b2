"use client";

import { useId, useRef, type ReactNode } from "react";
import { usePendingAction } from "../../hooks/use-pending-action";
import { BusyButton } from "../ui/busy-button";
import { ErrorAlert } from "../ui/error-alert";

interface ConfirmButtonProps {
  /** The button's visible text, e.g. "Remove". */
  label: string;
  /** Its accessible name when the text alone is ambiguous in a table, e.g. "Remove ada@example.com". */
  accessibleLabel?: string;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  disabled?: boolean;
  testId?: string;
}

/**
 * The words of a list row's destructive action on a named thing: `verb` on the button ("Revoke"), the verb, noun and
 * name to a screen reader ("Revoke token ci"), the question as the dialog's title and the verb and noun on its
 * confirm button.
 */
export function rowActionWords(verb: string, noun: string, name: string) {
  return {
    label: verb,
    accessibleLabel: `${verb} ${noun} ${name}`,
    title: `${verb} ${noun} “${name}”?`,
    confirmLabel: `${verb} ${noun}`,
  };
}

/**
 * A destructive action behind a modal dialog (native <dialog>: focus stays inside, Esc cancels).
 * A refusal from the API stays in the dialog, next to the button that caused it.
 */
export function ConfirmButton({
  label,
  accessibleLabel,
  title,
  children,
  confirmLabel,
  onConfirm,
  disabled,
  testId,
}: ConfirmButtonProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const id = useId();
  const { pending, failure, run, clearFailure } = usePendingAction();

  function open() {
    clearFailure();
    dialog.current?.showModal();
  }

  function confirm() {
    return run(async () => {
      await onConfirm();
      dialog.current?.close();
    });
  }

  return (
    <>
      <button
        className="button small danger"
        type="button"
        onClick={open}
        disabled={disabled}
        aria-label={accessibleLabel}
        data-testid={testId}
      >
        {label}
      </button>
      <dialog
        ref={dialog}
        className="confirm-dialog"
        aria-labelledby={`${id}-title`}
        aria-describedby={`${id}-body`}
        data-testid="confirm-dialog"
      >
        <h2 id={`${id}-title`}>{title}</h2>
        <div id={`${id}-body`}>{children}</div>
        <ErrorAlert error={failure} testId="confirm-error" />
        <div className="form-actions">
          <BusyButton
            className="button danger solid"
            onClick={confirm}
            busy={pending}
            busyText="Please wait…"
            testId="confirm-action"
          >
            {confirmLabel}
          </BusyButton>
          {/* Focus starts on Cancel, so a stray Enter does not confirm. */}
          {/* biome-ignore lint/a11y/noAutofocus: a confirm dialog opens on the harmless choice, as the dialog pattern asks. */}
          <button className="button" type="button" onClick={() => dialog.current?.close()} autoFocus>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
