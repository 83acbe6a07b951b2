import type { ReactNode } from "react";

interface BusyButtonProps {
  /** A request is out: the button is disabled and says what it is doing instead of its label. */
  busy: boolean;
  /** What it says while busy, e.g. "Saving…". */
  busyText: string;
  children: ReactNode;
  /** Without one, the button submits its form. */
  onClick?: () => void;
  /** Disabled for a reason of its own too (nothing changed, a problem shown). */
  disabled?: boolean;
  className?: string;
  /** The accessible name where the label alone does not say which thing it acts on. */
  label?: string;
  testId?: string;
}

/** A form's action button: one request at a time, and while it is out the button says so. */
export function BusyButton({
  busy,
  busyText,
  children,
  onClick,
  disabled = false,
  className = "button primary",
  label,
  testId,
}: BusyButtonProps) {
  return (
    <button
      className={className}
      type={onClick ? "button" : "submit"}
      onClick={onClick}
      disabled={busy || disabled}
      aria-label={label}
      data-testid={testId}
    >
      {busy ? busyText : children}
    </button>
  );
}
