"use client";

import Link from "next/link";
import { useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState, type FormEvent } from "react";
import { PlanSpec } from "@throng/protocol/plan";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { ApiError, errorMessage } from "../../lib/shared/api-client";
import {
  draftFromInput,
  draftToInput,
  errorsByPath,
  fieldId,
  issuesToFields,
  specFieldErrors,
  validateDraft,
  type PlanDraft,
  type PlanErrors,
} from "../../lib/plans/plan-draft";
import { formatOfFile, parsePlanText, planToText, type PlanFormat } from "../../lib/plans/plan-text";
import { CodeEditor } from "../ui/code-editor";
import { ErrorSummary } from "./error-summary";
import { downloadPlan } from "./plan-download";
import { PlanFormSections } from "./plan-form-sections";
import { TRIAL_NAME, type TrialCheck } from "./session-trial";
import { planJsonLanguage, planYamlLanguage } from "./plan-text-language";
import { Tabs } from "../ui/tabs";
import { BusyButton } from "../ui/busy-button";
import { FilePicker } from "../ui/file-picker";

type View = "form" | PlanFormat;
const VIEWS = [
  { id: "form", label: "Form" },
  { id: "yaml", label: "YAML" },
  { id: "json", label: "JSON" },
] as const;

/** The text views' editors: the same CodeMirror with the plan's schema, in each format's grammar. */
const TEXT_VIEWS = {
  yaml: { name: "YAML", testId: "plan-yaml", language: planYamlLanguage, completes: "Ctrl+Space completes a key" },
  json: {
    name: "JSON",
    testId: "plan-json",
    language: planJsonLanguage,
    completes: "a key's or a value's opening quote offers what the schema allows",
  },
} as const;

/**
 * Problems of a text document (where it does not parse, or what the schema says about it) and the plan it holds, for
 * naming its problems' fields (empty where it does not parse): one parse for both.
 */
function checkText(text: string, format: PlanFormat): { errors: PlanErrors; draft: PlanDraft } {
  const parsed = parsePlanText(text, format);
  if (!parsed.ok) return { errors: { form: parsed.error }, draft: draftFromInput({}) };
  const result = PlanSpec.safeParse(parsed.value);
  return {
    errors: result.success ? {} : errorsByPath(issuesToFields(result.error.issues)),
    draft: draftFromInput(parsed.value),
  };
}

/** A text view is checked once typing (or a paste) pauses this long, not on every keystroke: a long plan stays responsive. */
const TEXT_CHECK_MS = 250;

function draftProblems(draft: PlanDraft): PlanErrors {
  const checked = validateDraft(draft);
  return checked.ok ? {} : checked.errors;
}

export interface PlanEditTarget {
  planId: string;
  /** The version the editor was loaded with; the API refuses the save if the plan has moved on. */
  version: number;
  /** Loads the plan again (dropping these edits) after a conflict. */
  onReload: () => void;
}

/**
 * The plan editor: a form drawn from the schema, and the same plan as YAML or JSON, all editable; switching
 * views carries the plan across. Import reads a .json/.yaml file; export downloads one. Saving creates a plan,
 * or with `edit` saves a new version of that plan (refused with 409 if another version was saved meanwhile).
 */
export function PlanEditor({
  initial,
  title,
  intro,
  edit,
}: {
  initial: PlanDraft;
  title: string;
  intro: string;
  edit?: PlanEditTarget;
}) {
  const router = useRouter();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<PlanDraft>(initial);
  const [view, setView] = useState<View>("form");
  const [text, setText] = useState("");
  const [errors, setErrors] = useState<PlanErrors>({});
  const [checking, setChecking] = useState(false);
  const [pending, setPending] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);
  const [conflict, setConflict] = useState<string | null>(null);
  const [checkedDraft, setCheckedDraft] = useState<PlanDraft>(initial);

  // A text view's problems, once its text has stayed the same for a moment.
  useEffect(() => {
    if (view === "form") return;
    const timer = setTimeout(() => {
      const checked = checkText(text, view);
      setErrors(checked.errors);
      setCheckedDraft(checked.draft);
    }, TEXT_CHECK_MS);
    return () => clearTimeout(timer);
  }, [text, view]);

  /** The plan as the current view has it, or null (with errors shown) when a text view does not parse. */
  const currentDraft = (): PlanDraft | null => {
    if (view === "form") return draft;
    const parsed = parsePlanText(text, view);
    if (!parsed.ok) {
      setErrors({ form: parsed.error });
      return null;
    }
    return draftFromInput(parsed.value);
  };

  function switchView(next: string) {
    const target = next as View;
    if (target === view) return;
    const current = currentDraft();
    if (!current) return;
    setDraft(current);
    // A text view's problems follow from its text (the effect above); the form's are checked at once once it has been saved.
    if (target !== "form") setText(planToText(draftToInput(current), target));
    else setErrors(checking ? draftProblems(current) : {});
    setView(target);
  }

  function changeDraft(next: PlanDraft) {
    setDraft(next);
    if (checking) setErrors(draftProblems(next));
  }

  function changeText(next: string) {
    setText(next);
  }

  function showProblems(found: PlanErrors) {
    setChecking(true);
    setErrors(found);
    requestAnimationFrame(() => {
      const first = Object.keys(found)[0];
      const field = view === "form" && first ? document.getElementById(fieldId(first)) : null;
      (field ?? document.getElementById("plan-problems"))?.focus();
    });
  }

  /**
   * The form's plan for "Try it", validated as saving does (its problems shown), or how many problems stop it. A
   * trial saves nothing, so a plan not named yet is tried under a stand-in name rather than refused.
   */
  function checkedSpec(): TrialCheck {
    const checked = validateDraft(String(draft.name ?? "").trim() === "" ? { ...draft, name: TRIAL_NAME } : draft);
    if (!checked.ok) {
      showProblems(checked.errors);
      return { problems: Object.keys(checked.errors).length };
    }
    setErrors({});
    return { spec: checked.spec };
  }

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const current = currentDraft();
    if (!current) return;
    const checked = validateDraft(current);
    if (!checked.ok) return showProblems(checked.errors);
    setErrors({});
    setPending(true);
    try {
      const saved = edit
        ? await api.updatePlan(edit.planId, { version: edit.version, spec: checked.spec })
        : await api.savePlan(checked.spec);
      // The plan page opens on the saved version at once (the API's answer is the plan), and the lists and the
      // versions ask again, rather than the page showing the cached older version until its own read answers.
      queryClient.setQueryData(queryKeys.plan(saved.id), saved);
      void queryClient.invalidateQueries({ queryKey: queryKeys.planLists });
      void queryClient.invalidateQueries({ queryKey: queryKeys.planVersions(saved.id) });
      router.push(`/plans/${saved.id}`);
    } catch (error) {
      if (edit && error instanceof ApiError && error.status === 409) {
        setConflict(error.message);
        setPending(false);
        requestAnimationFrame(() => document.getElementById("plan-conflict")?.focus());
        return;
      }
      const fields = error instanceof ApiError ? (edit ? specFieldErrors(error.fields) : error.fields) : [];
      showProblems(fields.length > 0 ? errorsByPath(fields) : { form: errorMessage(error) });
      setPending(false);
    }
  }

  async function importFile(file: File) {
    const format = formatOfFile(file.name);
    const parsed = parsePlanText(await file.text(), format);
    if (!parsed.ok) {
      setNotice(null);
      setErrors({ form: `${file.name}: ${parsed.error}` });
      return;
    }
    const imported = draftFromInput(parsed.value);
    setDraft(imported);
    if (view !== "form") setText(planToText(draftToInput(imported), view));
    const problems = draftProblems(imported);
    setChecking(true);
    if (view === "form") setErrors(problems);
    setNotice(`Imported ${file.name}${Object.keys(problems).length ? "; fix the problems listed before saving" : ""}.`);
  }

  function exportAs(format: PlanFormat) {
    const current = currentDraft();
    if (current) downloadPlan(draftToInput(current), format);
  }

  return (
    <form onSubmit={save} noValidate aria-labelledby="plan-form-title" data-testid="plan-form">
      <div className="page-head">
        <div>
          <h1 id="plan-form-title">{title}</h1>
          <p>{intro}</p>
        </div>
        <div className="head-actions">
          <FilePicker
            accept=".json,.yaml,.yml,application/json,application/yaml"
            label="Plan file to import"
            testId="import-plan"
            onFile={(file) => void importFile(file)}
          >
            Import file…
          </FilePicker>
          <button className="button" type="button" onClick={() => exportAs("yaml")} data-testid="export-yaml">
            Export YAML
          </button>
          <button className="button" type="button" onClick={() => exportAs("json")} data-testid="export-json">
            Export JSON
          </button>
        </div>
      </div>
      {notice && (
        <p className="notice" role="status" data-testid="import-notice">
          {notice}
        </p>
      )}
      {conflict && edit && (
        <div className="alert" role="alert" id="plan-conflict" tabIndex={-1} data-testid="plan-conflict">
          <p>{conflict}</p>
          <button className="button" type="button" onClick={edit.onReload} data-testid="plan-conflict-reload">
            Reload
          </button>{" "}
          <span className="small">
            Loads the latest version; your changes here are dropped, so copy them first if you need them.
          </span>
        </div>
      )}
      <ErrorSummary errors={errors} draft={view === "form" ? draft : checkedDraft} />
      <Tabs label="Plan views" idPrefix="plan-view" tabs={VIEWS} selected={view} onSelect={switchView}>
        {view === "form" ? (
          <PlanFormSections draft={draft} errors={errors} onChange={changeDraft} checkPlan={checkedSpec} />
        ) : (
          <div className="panel field">
            <label htmlFor="plan-text">Plan as {TEXT_VIEWS[view].name}</label>
            {/* One editor per view (keyed): each is built with its own language. */}
            <CodeEditor
              key={view}
              id="plan-text"
              label={`Plan as ${TEXT_VIEWS[view].name}`}
              value={text}
              onChange={changeText}
              testId={TEXT_VIEWS[view].testId}
              describedBy="plan-text-hint"
              language={TEXT_VIEWS[view].language}
            />
            <p className="hint" id="plan-text-hint">
              The same plan as the form. Edits are checked against the plan schema as you type, each problem marked at
              its line ({TEXT_VIEWS[view].completes}, hovering a key explains it); switch back to the form at any time.
            </p>
          </div>
        )}
      </Tabs>
      <div className="form-actions">
        <BusyButton busy={pending} busyText="Saving…" testId="save-plan">
          {edit ? `Save as version ${edit.version + 1}` : "Save plan"}
        </BusyButton>
        <Link className="button" href={edit ? `/plans/${edit.planId}` : "/plans"}>
          Cancel
        </Link>
      </div>
    </form>
  );
}
