"use client";

import { fieldId, type PlanDraft, type PlanErrors } from "../../lib/plans/plan-draft";
import { problemLabel } from "../../lib/plans/plan-problem";

/** Every problem at once, each named by its field's labels and a link to it (when the form shows it); focused after a failed save. */
export function ErrorSummary({
  errors,
  draft,
  id = "plan-problems",
}: {
  errors: PlanErrors;
  draft: PlanDraft;
  id?: string;
}) {
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
      <strong>{entries.length === 1 ? "1 problem" : `${entries.length} problems`} to fix before saving:</strong>
      <ul>
        {entries.map(([path, message]) => (
          <li key={path}>
            <a
              href={`#${fieldId(path)}`}
              onClick={(event) => {
                if (focusField(path)) event.preventDefault();
              }}
            >
              {path === "form" ? "" : `${problemLabel(path, draft) || path}: `}
              {message}
            </a>
          </li>
        ))}
      </ul>
    </div>
  );
}
