"use client";

import { fieldId, type PlanErrors } from "../lib/plan-draft";

/** Every problem at once, each a link to its field (when the form shows it); focused after a failed save. */
export function ErrorSummary({ errors, id = "plan-problems" }: { errors: PlanErrors; id?: string }) {
  const entries = Object.entries(errors);
  if (entries.length === 0) return null;
  const focusField = (path: string) => {
    const element = document.getElementById(fieldId(path)) ?? document.getElementById(`${fieldId(path)}-on`);
    if (!element) return false;
    element.focus();
    return true;
  };
  return (
    <div className="alert" role="alert" tabIndex={-1} id={id} data-testid="plan-form-error">
      <strong>
        {entries.length === 1 ? "1 problem" : `${entries.length} problems`} to fix before saving:
      </strong>
      <ul>
        {entries.map(([path, message]) => (
          <li key={path}>
            <a
              href={`#${fieldId(path)}`}
              onClick={(event) => {
                if (focusField(path)) event.preventDefault();
              }}
            >
              {path === "form" ? "" : `${path}: `}
              {message}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
