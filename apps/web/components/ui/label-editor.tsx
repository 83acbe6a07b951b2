"use client";

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
        return (
          <div key={row.id} className="label-row-wrap">
            <div className="label-row">
              <label className="sr-only" htmlFor={`${idPrefix}-label-${row.id}-key`}>
                {One} {index + 1} name
              </label>
              <input
                id={`${idPrefix}-label-${row.id}-key`}
                type="text"
                placeholder={`name, e.g. ${noun.name}`}
                value={row.key}
                onChange={(event) => update(row.id, { key: event.target.value })}
                aria-invalid={error ? true : undefined}
                aria-describedby={errorId}
                autoComplete="off"
              />
              <span aria-hidden="true">=</span>
              <label className="sr-only" htmlFor={`${idPrefix}-label-${row.id}-value`}>
                {One} {index + 1} value
              </label>
              <input
                id={`${idPrefix}-label-${row.id}-value`}
                type="text"
                placeholder={`value, e.g. ${noun.value}`}
                value={row.value}
                onChange={(event) => update(row.id, { value: event.target.value })}
                autoComplete="off"
              />
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
