"use client";

import { useState } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import {
  CALCULATOR_FIELDS,
  DEFAULT_FORM,
  calculate,
  fieldsFromRun,
  formatBits,
  playersHeld,
  type CalculatorForm,
} from "../../lib/calculator/calculator-form";
import { formatDateTime, formatInteger, formatRate } from "../../lib/shared/format";
import { queryKeys } from "../../lib/shared/query-keys";
import { TextField } from "../ui/text-field";
import { ErrorAlert } from "../ui/error-alert";

/** The typed player count as the figures beside it read ("1,000"), or as typed when it is not a number yet. */
const playersText = (raw: string) =>
  raw.trim() !== "" && Number.isFinite(Number(raw)) ? formatInteger(Number(raw)) : raw;

/** Players a server holds by one ceiling, or that the ceiling was left blank. */
const ceilingText = (players: number | null) => (players === null ? "no ceiling given" : formatInteger(players));

function Figure({ label, value, testId, hint }: { label: string; value: string; testId: string; hint?: string }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd data-testid={testId}>{value}</dd>
      {/* A second dd, as a dl's group holds only dt and dd (axe: definition-list). */}
      {hint && <dd className="muted small">{hint}</dd>}
    </div>
  );
}

/** Fills the form from a finished run: its measured message rate per player and its plan's sizes. */
function FromRun({ onFill }: { onFill: (fields: Partial<CalculatorForm>, from: string) => void }) {
  const runs = useApiQuery(queryKeys.recentRuns, (signal) => api.listRuns(signal));
  const [runId, setRunId] = useState("");
  const measured = (runs.data ?? []).filter((run) => run.summary && run.summary.peakClients > 0);
  return (
    <div className="inline-form" data-testid="calculator-from-run">
      <div className="field">
        <label htmlFor="calculator-run">Start from a measured run</label>
        <select
          id="calculator-run"
          value={runId}
          onChange={(event) => setRunId(event.target.value)}
          disabled={measured.length === 0}
        >
          <option value="">{measured.length === 0 ? "No finished runs yet" : "Choose a run…"}</option>
          {measured.map((run) => (
            <option key={run.id} value={run.id}>
              {run.planName} · {formatDateTime(run.createdAt)}
            </option>
          ))}
        </select>
      </div>
      <button
        className="button"
        type="button"
        disabled={!runId}
        data-testid="calculator-fill"
        onClick={() => {
          const run = measured.find((candidate) => candidate.id === runId);
          if (run) onFill(fieldsFromRun(run), run.planName);
        }}
      >
        Fill from run
      </button>
      <ErrorAlert error={runs.error} />
    </div>
  );
}

/** The capacity arithmetic game teams do by hand, with units and the formulas shown. */
export function CalculatorView() {
  const [form, setForm] = useState<CalculatorForm>(DEFAULT_FORM);
  const [filledFrom, setFilledFrom] = useState<string | null>(null);
  const outcome = calculate(form);
  const held = outcome.ok ? playersHeld(outcome.result) : null;
  return (
    <>
      <div className="page-head">
        <div>
          <h1>Capacity calculator</h1>
          <p>
            From a room’s shape and message sizes to messages, packets and bandwidth, and to the players a measured
            ceiling allows.
          </p>
        </div>
      </div>
      <div className="calculator">
        <section className="panel" aria-labelledby="calculator-inputs-title">
          <h2 id="calculator-inputs-title">Inputs</h2>
          <FromRun
            onFill={(fields, from) => {
              setForm((current) => ({ ...current, ...fields }));
              setFilledFrom(from);
            }}
          />
          {filledFrom && (
            <p className="muted small" role="status" data-testid="calculator-filled">
              Filled from run “{filledFrom}”: messages per player per second (messages/s ÷ peak clients) and message
              size from its plan.
            </p>
          )}
          <form onSubmit={(event) => event.preventDefault()} noValidate>
            {CALCULATOR_FIELDS.map((field) => (
              <TextField
                key={field.key}
                id={`calc-${field.key}`}
                label={field.label}
                unit={field.unit}
                hint={field.hint}
                inputMode="numeric"
                value={form[field.key]}
                onChange={(value) => setForm((current) => ({ ...current, [field.key]: value }))}
                error={outcome.ok ? undefined : outcome.errors[field.key]}
              />
            ))}
          </form>
        </section>
        <section className="panel" aria-labelledby="calculator-results-title" aria-live="polite">
          <h2 id="calculator-results-title">Results</h2>
          {!outcome.ok ? (
            <p className="alert" data-testid="calculator-invalid">
              Fix the fields marked on the left to see the results.
            </p>
          ) : (
            <>
              <div className="calculator-answer" data-testid="calculator-players">
                {held ? (
                  <>
                    A server holds <strong data-testid="calculator-players-value">{formatInteger(held.players)}</strong>{" "}
                    players, limited by {held.by === "packets" ? "packets per second" : "bandwidth"}.
                  </>
                ) : (
                  "Enter a measured packets-per-second or bandwidth ceiling to see how many players a server holds."
                )}
              </div>
              <dl className="summary-grid">
                <Figure
                  label="Messages in per room"
                  value={`${formatRate(outcome.result.roomMessagesInPerSec)} msg/s`}
                  testId="calc-room-in"
                />
                <Figure
                  label="Messages out per room"
                  value={`${formatRate(outcome.result.roomMessagesOutPerSec)} msg/s`}
                  testId="calc-room-out"
                />
                <Figure
                  label="Packets in"
                  value={`${formatRate(outcome.result.packetsInPerSec)} /s`}
                  testId="calc-packets-in"
                  hint={`for ${playersText(form.players)} players`}
                />
                <Figure
                  label="Packets out"
                  value={`${formatRate(outcome.result.packetsOutPerSec)} /s`}
                  testId="calc-packets-out"
                  hint={`for ${playersText(form.players)} players`}
                />
                <Figure label="Bandwidth in" value={formatBits(outcome.result.bitsInPerSec)} testId="calc-bits-in" />
                <Figure label="Bandwidth out" value={formatBits(outcome.result.bitsOutPerSec)} testId="calc-bits-out" />
                <Figure
                  label="Players by packets"
                  value={ceilingText(outcome.result.playersByPackets)}
                  testId="calc-players-packets"
                />
                <Figure
                  label="Players by bandwidth"
                  value={ceilingText(outcome.result.playersByBandwidth)}
                  testId="calc-players-bandwidth"
                />
              </dl>
              <h3>How it is worked out</h3>
              <ul className="calculator-formulas">
                {outcome.result.formulas.map((formula) => (
                  <li key={formula}>{formula}</li>
                ))}
              </ul>
            </>
          )}
        </section>
      </div>
    </>
  );
}
