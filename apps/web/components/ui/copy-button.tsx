"use client";

import { useState } from "react";

const TEXT = { idle: "Copy", copied: "Copied", failed: "Copy failed" } as const;

/** Copies `text` to the clipboard and says so; `label` names what is copied for screen readers. */
export function CopyButton({ text, label }: { text: string; label: string }) {
  const [state, setState] = useState<keyof typeof TEXT>("idle");

  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
    } catch {
      setState("failed");
    }
    setTimeout(() => setState("idle"), 2000);
  }

  return (
    <>
      <button className="button small" type="button" onClick={copy}>
        {TEXT[state]}
        <span className="sr-only"> {label}</span>
      </button>
      <span className="sr-only" role="status">
        {state === "idle" ? "" : `${TEXT[state]}: ${label}`}
      </span>
    </>
  );
}
