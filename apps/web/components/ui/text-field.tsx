import type { HTMLInputTypeAttribute } from "react";

interface TextFieldProps {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  type?: HTMLInputTypeAttribute;
  unit?: string;
  hint?: string | undefined;
  error?: string | undefined;
  autoComplete?: string;
  inputMode?: "numeric" | "text" | "url" | "email";
}

/** A labelled input with its unit, hint and field error, tied together for screen readers. */
export function TextField({
  id,
  label,
  value,
  onChange,
  type = "text",
  unit,
  hint,
  error,
  autoComplete,
  inputMode,
}: TextFieldProps) {
  const unitId = unit ? `${id}-unit` : undefined;
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [unitId, hintId, errorId].filter(Boolean).join(" ") || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="input-row">
        <input
          id={id}
          name={id}
          type={type}
          value={value}
          onChange={(event) => onChange(event.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
          autoComplete={autoComplete}
          inputMode={inputMode}
        />
        {unit && (
          <span className="unit" id={unitId}>
            {unit}
          </span>
        )}
      </div>
      {hint && (
        <span className="hint" id={hintId}>
          {hint}
        </span>
      )}
      {error && (
        <p className="field-error" id={errorId} data-testid={`field-error-${id}`}>
          {error}
        </p>
      )}
    </div>
  );
}

/** An endpoint's "URL" field (a webhook, a metrics sink): the browser checks it and offers a URL keyboard. */
export function UrlField(props: Omit<TextFieldProps, "label" | "type" | "inputMode">) {
  return <TextField {...props} label="URL" type="url" inputMode="url" />;
}

/**
 * For a form that keeps its typed values and its errors keyed by field: a field's id (the key, after `idPrefix` where
 * the page has other forms), value, change and error, to spread on its TextField.
 */
export function fieldBinder<K extends string>(
  values: Record<K, string>,
  update: (key: K) => (value: string) => void,
  errors: Partial<Record<NoInfer<K>, string>>,
  idPrefix = "",
) {
  return (key: K) => ({ id: `${idPrefix}${key}`, value: values[key], onChange: update(key), error: errors[key] });
}
