import type { ReactNode } from "react";

export interface SelectOption<V extends string | number> {
  id: V;
  label: ReactNode;
}

interface SelectFieldProps<V extends string | number> {
  id: string;
  label: string;
  value: V;
  options: readonly SelectOption<V>[];
  onChange: (value: V) => void;
  /** Said under the select (what the chosen option means), tied to it for screen readers. */
  hint?: ReactNode;
  /** In a toolbar or a filter row: the label beside the select, not above it as in a form grid. */
  inline?: boolean;
  testId?: string;
}

/** A labelled select of a few known options; it hands back the option's own value (a number stays a number). */
export function SelectField<V extends string | number>({
  id,
  label,
  value,
  options,
  onChange,
  hint,
  inline = false,
  testId,
}: SelectFieldProps<V>) {
  const hintId = hint ? `${id}-hint` : undefined;
  const choose = (chosen: string) => {
    const option = options.find((candidate) => String(candidate.id) === chosen);
    if (option) onChange(option.id);
  };
  return (
    <div className={inline ? "field inline" : "field"}>
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        value={value}
        onChange={(event) => choose(event.target.value)}
        aria-describedby={hintId}
        data-testid={testId}
      >
        {options.map((option) => (
          <option key={option.id} value={option.id}>
            {option.label}
          </option>
        ))}
      </select>
      {hint && (
        <p className="hint" id={hintId} data-testid={hintId}>
          {hint}
        </p>
      )}
    </div>
  );
}
