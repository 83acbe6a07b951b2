"use client";

import { useRef, type ReactNode } from "react";
import { BusyButton } from "./busy-button";

interface FilePickerProps {
  /** The file types offered, as the input's accept attribute. */
  accept: string;
  /** What the file is for, read out by screen readers on the (hidden) input. */
  label: string;
  /** The button's test id; the input's is the same with "-file" after it. */
  testId: string;
  onFile: (file: File) => void;
  /** Reading or sending the last file: the button is disabled and says `busyText`. */
  busy?: boolean;
  busyText?: string;
  children: ReactNode;
}

/**
 * A button that opens the browser's file chooser and hands over the file picked. The input itself is out of sight and
 * out of the tab order, and forgets each file once handed over, so picking the same file again is a new pick.
 */
export function FilePicker({ accept, label, testId, onFile, busy = false, busyText = "", children }: FilePickerProps) {
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <BusyButton
        className="button"
        onClick={() => input.current?.click()}
        busy={busy}
        busyText={busyText}
        testId={testId}
      >
        {children}
      </BusyButton>
      <input
        ref={input}
        type="file"
        accept={accept}
        className="sr-only"
        tabIndex={-1}
        aria-label={label}
        data-testid={`${testId}-file`}
        onChange={(event) => {
          const file = event.target.files?.[0];
          if (file) onFile(file);
          event.target.value = "";
        }}
      />
    </>
  );
}
