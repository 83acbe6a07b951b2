"use client";

import type { AriaAttributes } from "react";
import { labelRow, type LabelErrors, type LabelRow } from "../../lib/shared/labels";

interface LabelEditorProps {
  idPrefix: string;
  /** Names the group, e.g. "Agent labels" or "Only agents with these labels". */
  legend: string;
  hint?: string;
  rows: LabelRow[];
  errors: LabelErrors;
  onChange: (rows: LabelRow[]) => void;
  /** What one row is ("label", "header", "parameter"), with an example name and value. */
  noun?: { one: string; name: string; value: string } | undefined;
}

const LABEL = { one: "label", name: "region", value: "eu-west" };

/** key=value rows with add and remove; each input labelled, each error beside its row. */
export function LabelEditor({ idPrefix, legend, hint, rows, errors, onChange, noun = LABEL }: LabelEditorProps) {
  const One = noun.one.charAt(0).toUpperCase() + noun.one.slice(1);
  const update = (id: number, patch: Partial<LabelRow>) =>
    onChange(rows.map((row) => (row.id === id ? { ...row, ...patch } : row)));
  const hintId = hint ? `${idPrefix}-hint` : undefined;

  return (
    <fieldset className="label-editor" aria-describedby={hintId} data-testid={`${idPrefix}-labels`}>
      <legend>{legend}</legend>
      {hint && (
        <p className="hint" id={hintId}>
          {hint}
        </p>
      )}
      {rows.length === 0 && <p className="muted">No {noun.one}s.</p>}
      {rows.map((row, index) => {
        const error = errors[row.id];
        const errorId = error ? `${idPrefix}-label-${row.id}-error` : undefined;
        // One side of the row, its name or its value, labelled for screen readers ("Label 2 name").
        const side = (part: "key" | "value", aria: AriaAttributes = {}) => {
          const word = part === "key" ? "name" : "value";
          const id = `${idPrefix}-label-${row.id}-${part}`;
          return (
            <>
              <label className="sr-only" htmlFor={id}>
                {One} {index + 1} {word}
              </label>
              <input
                id={id}
                type="text"
                placeholder={`${word}, e.g. ${noun[word]}`}
                value={row[part]}
                onChange={(event) => update(row.id, { [part]: event.target.value })}
                autoComplete="off"
                {...aria}
              />
            </>
          );
        };
        return (
          <div key={row.id} className="label-row-wrap">
            <div className="label-row">
              {/* The row's error is told on its name. */}
              {side("key", { "aria-invalid": error ? true : undefined, "aria-describedby": errorId })}
              <span aria-hidden="true">=</span>
              {side("value")}
              <button
                className="button small"
                type="button"
                onClick={() => onChange(rows.filter((candidate) => candidate.id !== row.id))}
                aria-label={`Remove ${noun.one} ${index + 1}${row.key ? ` (${row.key})` : ""}`}
              >
                Remove
              </button>
            </div>
            {error && (
              <p className="field-error" id={errorId}>
                {error}
              </p>
            )}
          </div>
        );
      })}
      <button className="button small" type="button" onClick={() => onChange([...rows, labelRow()])}>
        Add {noun.one}
      </button>
      {errors.form && (
        <p className="field-error" role="alert">
          {errors.form}
        </p>
      )}
    </fieldset>
  );
}
