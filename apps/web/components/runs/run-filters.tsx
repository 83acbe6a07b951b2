"use client";

import { VERDICT_OUTCOMES } from "@throng/protocol/report";
import { useState } from "react";
import { RunStatus } from "@throng/protocol/run";
import { outcomeLabel } from "../../lib/shared/verdict";
import { EMPTY_RUN_FILTER, isFiltered, type RunFilter } from "../../lib/runs/run-filter";
import { typedTag } from "../../lib/runs/run-notes";
import { TagInput } from "./run-tags";
import { SelectField, type SelectOption } from "../ui/select-field";

/** A filter's options after the blank one that clears it ("All plans"). */
const clearedBy = <V extends string>(blank: string, options: readonly SelectOption<V>[]): SelectOption<V | "">[] => [
  { id: "", label: blank },
  ...options,
];

/** The filters chosen from a select. */
type SelectedKey = "planId" | "status" | "outcome";

const STATUS_OPTIONS = clearedBy(
  "Any status",
  RunStatus.options.map((status) => ({ id: status, label: status })),
);
const VERDICT_OPTIONS = clearedBy(
  "Any verdict",
  VERDICT_OUTCOMES.map((outcome) => ({ id: outcome, label: outcomeLabel(outcome) })),
);

/** Plan, status, verdict, tag and date filters for the runs list; every change goes back to page 1. */
export function RunFilters({
  filter,
  plans,
  onChange,
}: {
  filter: RunFilter;
  plans: { id: string; name: string }[];
  onChange: (filter: RunFilter) => void;
}) {
  const set = (patch: Partial<RunFilter>) => onChange({ ...filter, ...patch, page: 1 });
  // A select shows its key of the filter, blank while unset; choosing the blank option clears it.
  const chosen = <K extends SelectedKey>(key: K) => {
    const value: RunFilter[K] = filter[key];
    return {
      value: value ?? ("" as const),
      onChange: (next: NonNullable<RunFilter[K]> | "") => set({ [key]: next || null }),
    };
  };
  const planOptions = clearedBy(
    "All plans",
    plans.map((plan) => ({ id: plan.id, label: plan.name })),
  );
  return (
    <form
      className="filters"
      aria-label="Filter runs"
      onSubmit={(event) => event.preventDefault()}
      data-testid="run-filters"
    >
      <SelectField id="filter-plan" label="Plan" {...chosen("planId")} options={planOptions} inline />
      <SelectField id="filter-status" label="Status" {...chosen("status")} options={STATUS_OPTIONS} inline />
      <SelectField id="filter-outcome" label="Verdict" {...chosen("outcome")} options={VERDICT_OPTIONS} inline />
      <TagFilter key={filter.tag ?? ""} tag={filter.tag} onTag={(tag) => set({ tag })} />
      <DateBound
        id="filter-from"
        label="Created from"
        value={filter.from}
        max={filter.to}
        onChange={(from) => set({ from })}
      />
      <DateBound id="filter-to" label="to" value={filter.to} min={filter.from} onChange={(to) => set({ to })} />
      {isFiltered(filter) && (
        <button className="button small" type="button" onClick={() => onChange(EMPTY_RUN_FILTER)}>
          Clear filters
        </button>
      )}
    </form>
  );
}

/** One end of the created-at range: a date that cannot pass the other end; cleared, it is null. */
function DateBound({
  id,
  label,
  value,
  min,
  max,
  onChange,
}: {
  id: string;
  label: string;
  value: string | null;
  min?: string | null;
  max?: string | null;
  onChange: (date: string | null) => void;
}) {
  return (
    <div className="field inline">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        type="date"
        value={value ?? ""}
        min={min ?? undefined}
        max={max ?? undefined}
        onChange={(event) => onChange(event.target.value || null)}
      />
    </div>
  );
}

/**
 * The tag filter: applied on Enter or when the field loses focus (not per keystroke, which would list the runs of
 * every prefix); a tag chip clicked in the list sets it too (the key remounts the field with it).
 */
function TagFilter({ tag, onTag }: { tag: string | null; onTag: (tag: string | null) => void }) {
  const [draft, setDraft] = useState(tag ?? "");
  // Blank clears the filter; anything else must be a tag a run could carry.
  const typed = draft.trim() === "" ? null : typedTag(draft);
  const apply = () => {
    if (typed && !typed.ok) return;
    const next = typed ? typed.tag : null;
    if (next !== tag) onTag(next);
  };
  return (
    <div className="field inline">
      <label htmlFor="filter-tag">Tag</label>
      <TagInput
        id="filter-tag"
        placeholder="any tag"
        draft={draft}
        onDraft={setDraft}
        problem={typed && !typed.ok ? typed.error : null}
        onBlur={apply}
        onEnter={apply}
      />
    </div>
  );
}

/** "Runs 21–40 of 57" with previous and next. */
export function Pager({
  first,
  last,
  matching,
  page,
  pages,
  onPage,
}: {
  first: number;
  last: number;
  matching: number;
  page: number;
  pages: number;
  onPage: (page: number) => void;
}) {
  return (
    <nav className="pager" aria-label="Pages of runs" data-testid="run-pager">
      <span aria-live="polite" data-testid="run-range">
        Runs {first}–{last} of {matching}
      </span>
      <button className="button small" type="button" onClick={() => onPage(page - 1)} disabled={page <= 1}>
        Previous page
      </button>
      <span className="muted">
        Page {page} of {pages}
      </span>
      <button className="button small" type="button" onClick={() => onPage(page + 1)} disabled={page >= pages}>
        Next page
      </button>
    </nav>
  );
}
