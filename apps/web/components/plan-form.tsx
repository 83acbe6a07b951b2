"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { api } from "../lib/api";
import { ApiError, errorMessage } from "../lib/api-client";
import { formatRate } from "../lib/format";
import {
  DEFAULT_PLAN_FORM,
  errorsByField,
  expectedMessagesPerSec,
  validatePlanForm,
  type PlanFormErrors,
  type PlanFormField,
  type PlanFormValues,
} from "../lib/plan-form";
import { TextField } from "./text-field";

interface NumberFieldSpec {
  field: PlanFormField;
  label: string;
  unit: string;
  hint: string;
}

const LOAD_FIELDS: NumberFieldSpec[] = [
  { field: "clients", label: "Clients", unit: "clients", hint: "Simulated players, each with its own connection." },
  { field: "durationSec", label: "Duration", unit: "s", hint: "How long the run lasts, ramp-up included." },
  { field: "rampUpSec", label: "Ramp-up", unit: "s", hint: "Clients join evenly over this time; 0 = all at once." },
];

const SCENARIO_FIELDS: NumberFieldSpec[] = [
  { field: "intervalMs", label: "Ping interval", unit: "ms", hint: "Each client sends a ping this often." },
  { field: "messageBytes", label: "Message size", unit: "B", hint: "Bytes per ping (the pong echoes them)." },
];

const FIELD_ORDER = Object.keys(DEFAULT_PLAN_FORM) as PlanFormField[];

/** Moves keyboard focus to the first field with an error, once it is rendered with its message. */
function focusFirstError(errors: PlanFormErrors) {
  const first = FIELD_ORDER.find((field) => errors[field]);
  if (first) requestAnimationFrame(() => document.getElementById(first)?.focus());
}

/** New ping-pong WebSocket plan: validated as typed with the protocol schema, then by the API. */
export function PlanForm() {
  const router = useRouter();
  const [values, setValues] = useState<PlanFormValues>(DEFAULT_PLAN_FORM);
  const [errors, setErrors] = useState<PlanFormErrors>({});
  const [pending, setPending] = useState(false);
  const rate = expectedMessagesPerSec(values);

  const [checking, setChecking] = useState(false);

  // After the first failed save, errors follow the typing, so a fixed field loses its message at once.
  const update = (field: PlanFormField) => (value: string) => {
    const next = { ...values, [field]: value };
    setValues(next);
    if (checking) {
      const checked = validatePlanForm(next);
      setErrors(checked.ok ? {} : checked.errors);
    }
  };

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const checked = validatePlanForm(values);
    if (!checked.ok) {
      setChecking(true);
      setErrors(checked.errors);
      focusFirstError(checked.errors);
      return;
    }
    setErrors({});
    setPending(true);
    try {
      await api.savePlan(checked.spec);
      router.push("/plans");
    } catch (error) {
      const fields = error instanceof ApiError ? error.fields : [];
      const found = fields.length > 0 ? errorsByField(fields) : { form: errorMessage(error) };
      setErrors(found);
      focusFirstError(found);
      setPending(false);
    }
  }

  const numberField = ({ field, label, unit, hint }: NumberFieldSpec) => (
    <TextField
      key={field}
      id={field}
      label={label}
      unit={unit}
      hint={hint}
      value={values[field]}
      onChange={update(field)}
      error={errors[field]}
      inputMode="numeric"
    />
  );

  return (
    <form onSubmit={submit} noValidate aria-labelledby="plan-form-title" data-testid="plan-form">
      <div className="page-head">
        <div>
          <h1 id="plan-form-title">New plan</h1>
          <p>Ping-pong over WebSocket: every client pings the target and times the pong.</p>
        </div>
      </div>
      {errors.form && (
        <p className="alert" role="alert" data-testid="plan-form-error">
          {errors.form}
        </p>
      )}
      <section className="panel" aria-labelledby="plan-target-title">
        <h2 id="plan-target-title">Target</h2>
        <TextField id="name" label="Plan name" value={values.name} onChange={update("name")} error={errors.name} hint="e.g. Lobby smoke test" />
        <TextField
          id="url"
          label="Target URL"
          type="url"
          inputMode="url"
          value={values.url}
          onChange={update("url")}
          error={errors.url}
          hint="The WebSocket endpoint under test, ws:// or wss://."
        />
      </section>
      <section className="panel" aria-labelledby="plan-load-title">
        <h2 id="plan-load-title">Load</h2>
        <div className="form-grid">{LOAD_FIELDS.map(numberField)}</div>
      </section>
      <section className="panel" aria-labelledby="plan-scenario-title">
        <h2 id="plan-scenario-title">Scenario</h2>
        <div className="form-grid">{SCENARIO_FIELDS.map(numberField)}</div>
        <p className="derived" aria-live="polite" data-testid="plan-rate">
          {rate === null ? "Enter clients and an interval to see the message rate." : `≈ ${formatRate(rate)} messages/s`}
          {rate !== null && <span className="muted"> sent, and as many pongs back</span>}
        </p>
      </section>
      <div className="form-actions">
        <button className="button primary" type="submit" disabled={pending} data-testid="save-plan">
          {pending ? "Saving…" : "Save plan"}
        </button>
        <Link className="button" href="/plans">
          Cancel
        </Link>
      </div>
    </form>
  );
}
