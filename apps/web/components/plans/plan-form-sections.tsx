"use client";

import { useMemo } from "react";
import { useApiQuery } from "../../hooks/use-api-query";
import { api } from "../../lib/shared/api";
import { queryKeys } from "../../lib/shared/query-keys";
import { formatRate } from "../../lib/shared/format";
import { formatBits } from "../../lib/calculator/calculator-form";
import { connectionsPerAgentText, derivePlanFigures } from "../../lib/plans/plan-derived";
import { PLAN_NODE, expectedMessagesPerSec, type PlanDraft, type PlanErrors } from "../../lib/plans/plan-draft";
import { scenarioDescription } from "../../lib/plans/plan-field-text";
import type { DraftObject, DraftValue } from "../../lib/plans/schema-form";
import type { FieldSpec } from "../../lib/plans/schema-node";
import { newSloRow, sloBelowUnit, sloMetricChoices } from "../../lib/plans/plan-slos";
import { draftCohortNames, newCohortRow } from "../../lib/plans/plan-cohorts";
import { FieldOverrides, ObjectFields, SchemaField } from "./schema-field";
import { SessionTrial, type TrialCheck } from "./session-trial";

const SECTIONS: { key: string; title: string; intro?: string }[] = [
  { key: "target", title: "Target", intro: "The server under test. Load goes only where the plan points." },
  { key: "scenario", title: "Scenario" },
  { key: "load", title: "Load", intro: "How many clients, for how long." },
  { key: "agents", title: "Agents", intro: "Which agents take the load, and what happens if one drops out." },
  {
    key: "network",
    title: "Network cohorts",
    intro:
      "Give some players a worse network than the rig's (a lossy phone link, a far-away region): each cohort's delay, jitter, loss and bandwidth apply to its clients' traffic only, and every figure, chart and SLO can be read per cohort. Over UDP and KCP each datagram meets them; over TCP and WebSocket the agent needs to reach below TCP, or the report says they were applied above it (docs/networks.md).",
  },
  {
    key: "slos",
    title: "SLOs",
    intro:
      "Pass/fail thresholds: the run passes when each metric stays below its threshold over the run; a capacity search finds the most clients that meet them all.",
  },
  {
    key: "export",
    title: "Metrics export",
    intro:
      "Stream the runs' per-second series to the organisation's Prometheus remote write or OTLP endpoint (set them up under Settings → Metrics export).",
  },
];

const place = (key: string) => ({ path: key, textKey: key, variants: [] as string[] });

/**
 * The plan as a form: one panel per section of the schema, every field drawn from it. With `checkPlan` (the editor's
 * validation) the scenario panel offers "Try it" for its session steps.
 */
export function PlanFormSections({
  draft,
  errors,
  onChange,
  checkPlan,
}: {
  draft: PlanDraft;
  errors: PlanErrors;
  onChange: (draft: PlanDraft) => void;
  checkPlan?: () => TrialCheck;
}) {
  const set = (key: string) => (value: DraftValue) => onChange({ ...draft, [key]: value });
  const field = (key: string) => PLAN_NODE.fields.find((candidate) => candidate.key === key);
  const rate = expectedMessagesPerSec(draft);
  const onlineAgents = useOnlineAgents();
  const derived = derivePlanFigures(draft, onlineAgents);
  const scenarioKind = String((draft.scenario as DraftObject | undefined)?.kind ?? "");
  const others = PLAN_NODE.fields.filter(
    (candidate) => candidate.key !== "name" && !SECTIONS.some((section) => section.key === candidate.key),
  );
  const nameField = field("name");
  const overrides = useSloOverrides(draft);

  return (
    <FieldOverrides.Provider value={overrides}>
      <section className="panel" aria-label="Name">
        {nameField && (
          <SchemaField
            field={nameField}
            place={place("name")}
            value={draft.name}
            errors={errors}
            onChange={set("name")}
          />
        )}
      </section>
      {SECTIONS.map(({ key, title, intro }) => {
        const spec = field(key);
        if (!spec) return null;
        const titleId = `plan-${key}-title`;
        return (
          <section key={key} className="panel" aria-labelledby={titleId} data-testid={`plan-section-${key}`}>
            <h2 id={titleId}>{title}</h2>
            {key === "scenario"
              ? scenarioDescription(scenarioKind) && <p className="muted">{scenarioDescription(scenarioKind)}</p>
              : intro && <p className="muted">{intro}</p>}
            <Section spec={spec} value={draft[key]} errors={errors} onChange={set(key)} />
            {key === "scenario" && checkPlan && scenarioKind !== "script" && <SessionTrial checkPlan={checkPlan} />}
            {key === "scenario" && (
              <p className="derived" aria-live="polite" data-testid="plan-rate">
                {rate === null
                  ? "The message rate depends on the server's answers."
                  : `≈ ${formatRate(rate)} messages/s sent at full load`}
                {derived.sentBitsPerSec !== null && (
                  <span data-testid="plan-bandwidth">{` · ≈ ${formatBits(derived.sentBitsPerSec)} of payload sent`}</span>
                )}
              </p>
            )}
            {key === "load" && (
              <p className="derived" aria-live="polite" data-testid="plan-connections-per-agent">
                {connectionsPerAgentText(derived, onlineAgents)}
              </p>
            )}
          </section>
        );
      })}
      {others.length > 0 && (
        <section className="panel" aria-labelledby="plan-more-title">
          <h2 id="plan-more-title">More</h2>
          <ObjectFields
            fields={others}
            place={place("")}
            value={draft}
            errors={errors}
            onChange={(next) => onChange(next)}
          />
        </section>
      )}
    </FieldOverrides.Provider>
  );
}

/**
 * The SLO section from the metric registry: the metrics this scenario measures, a new SLO as its own figure, and
 * each threshold's unit (a rate's in percent); the cohorts an SLO may name, and a new cohort's unused name. Kept
 * stable while the SLO- and cohort-deciding parts of the draft are.
 */
function useSloOverrides(draft: PlanDraft): FieldOverrides {
  const choices = sloMetricChoices(draft).join(",");
  const row = JSON.stringify(newSloRow(draft));
  const cohorts = draftCohortNames(draft).join(",");
  const cohortRow = JSON.stringify(newCohortRow(draft));
  const units = (Array.isArray(draft.slos) ? (draft.slos as DraftObject[]) : [])
    .map((slo) => sloBelowUnit(slo.metric) ?? "")
    .join(",");
  return useMemo(
    () => ({
      choices: { "slos.metric": choices ? choices.split(",") : [], "slos.cohort": cohorts ? cohorts.split(",") : [] },
      newItem: { slos: JSON.parse(row) as DraftObject, network: JSON.parse(cohortRow) as DraftObject },
      units: Object.fromEntries(units.split(",").flatMap((unit, i) => (unit ? [[`slos.${i}.below`, unit]] : []))),
    }),
    [choices, row, units, cohorts, cohortRow],
  );
}

const AGENTS_POLL_MS = 5000;

/**
 * Online agents, to show how many connections each would hold; null while unknown. Read through the agents cache and
 * asked again every few seconds: an agent started while the plan is written (to try the session, say) counts at
 * once, rather than the form saying "no agent is online" beside its successful trial.
 */
function useOnlineAgents(): number | null {
  const { data } = useApiQuery(queryKeys.agents, (signal) => api.listAgents(signal), { pollMs: AGENTS_POLL_MS });
  return data ? data.filter((agent) => agent.status === "online").length : null;
}

function Section({
  spec,
  value,
  errors,
  onChange,
}: {
  spec: FieldSpec;
  value: DraftValue;
  errors: PlanErrors;
  onChange: (value: DraftValue) => void;
}) {
  // An object section's fields go straight into its panel; a union (target, scenario) brings its own chooser.
  if (spec.node.kind === "object") {
    return (
      <ObjectFields
        fields={spec.node.fields}
        place={place(spec.key)}
        value={(value ?? {}) as DraftObject}
        errors={errors}
        onChange={onChange}
      />
    );
  }
  return <SchemaField field={spec} place={place(spec.key)} value={value} errors={errors} onChange={onChange} />;
}
