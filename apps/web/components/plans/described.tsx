/** A field's unit, hint and error beside its input, with the ids its aria-describedby names. */
export function Described({
  id,
  hint,
  error,
  unit,
}: {
  id: string;
  hint?: string | undefined;
  error?: string | undefined;
  unit?: string | undefined;
}) {
  return (
    <>
      {unit && (
        <span className="unit" id={`${id}-unit`}>
          {unit}
        </span>
      )}
      {hint && (
        <span className="hint" id={`${id}-hint`}>
          {hint}
        </span>
      )}
      {error && (
        <p className="field-error" id={`${id}-error`} data-testid={`field-error-${id}`}>
          {error}
        </p>
      )}
    </>
  );
}

export const describedBy = (
  id: string,
  parts: { unit?: string | undefined; hint?: string | undefined; error?: string | undefined },
) =>
  [parts.unit && `${id}-unit`, parts.hint && `${id}-hint`, parts.error && `${id}-error`].filter(Boolean).join(" ") ||
  undefined;
