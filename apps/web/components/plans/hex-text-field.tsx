"use client";

import { useState } from "react";
import { hexToText, textToHex } from "../../lib/shared/hex-text";
import { Described, describedBy } from "./described";

interface HexTextFieldProps {
  id: string;
  label: string;
  hint?: string | undefined;
  error?: string | undefined;
  value: string;
  onChange: (hex: string) => void;
}

/** A hex-bytes field with the same bytes as text beside it: typing "+PONG" or "\r\n" there fills the hex. */
export function HexTextField({ id, label, hint, error, value, onChange }: HexTextFieldProps) {
  // The text box keeps what was typed ("\r\" half-way to "\r\n") while it still gives the hex shown.
  const [typed, setTyped] = useState<string | null>(null);
  const text = typed !== null && textToHex(typed) === value ? typed : (hexToText(value) ?? "");
  const textId = `${id}-text`;
  const textLabel = label.replace(/\s*\(?hex\)?$/i, "");
  return (
    <>
      <div className="field">
        <label htmlFor={textId}>{textLabel} (text)</label>
        <input
          id={textId}
          type="text"
          value={text}
          autoComplete="off"
          spellCheck={false}
          aria-describedby={`${textId}-hint`}
          onChange={(event) => {
            setTyped(event.target.value);
            onChange(textToHex(event.target.value));
          }}
        />
        <span className="hint" id={`${textId}-hint`}>
          Fills the hex; escapes \r \n \t \0 \xNN.
        </span>
      </div>
      <div className="field">
        <label htmlFor={id}>{label.includes("hex") ? label : `${label} (hex)`}</label>
        <input
          id={id}
          name={id}
          type="text"
          className="code"
          value={value}
          autoComplete="off"
          spellCheck={false}
          onChange={(event) => onChange(event.target.value)}
          aria-describedby={describedBy(id, { hint, error })}
          aria-invalid={error ? true : undefined}
        />
        <Described id={id} hint={hint} error={error} />
      </div>
    </>
  );
}
