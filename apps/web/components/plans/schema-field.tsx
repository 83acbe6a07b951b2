"use client";

import { createContext, useContext, useState } from "react";
import type { LabelRow } from "../../lib/shared/labels";
import { metricName } from "../../lib/shared/slo-text";
import { blankChoiceText, fieldText, hasFieldText, limitsText, variantLabel } from "../../lib/plans/plan-field-text";
import { fieldId, type PlanErrors } from "../../lib/plans/plan-draft";
import {
  childKey,
  initialValue,
  initialVariant,
  variantFor,
  type DraftObject,
  type DraftValue,
} from "../../lib/plans/schema-form";
import type { FieldSpec, NodeSpec } from "../../lib/plans/schema-node";
import { Described, describedBy } from "./described";
import { HexTextField } from "./hex-text-field";
import { LabelEditor } from "../ui/label-editor";
import { ScriptPickerField } from "./script-picker-field";
import { UnionListField } from "./union-list-field";
import { useItemKeys } from "../../hooks/use-item-keys";

/** Where a field sits: its path in the plan (for errors and ids) and its text key (for labels and hints). */
export interface FieldPlace {
  path: string;
  textKey: string;
  variants: string[];
}

/**
 * What a form knows of its fields beyond the schema: the choices a select offers instead of its schema's, by text
 * key (an SLO's metric: what the scenario measures); what a new list item starts as, by the list's text key; and
 * the unit a field is typed in, by path (an SLO's threshold: its metric's).
 */
export interface FieldOverrides {
  choices?: Readonly<Record<string, readonly string[]>>;
  newItem?: Readonly<Record<string, DraftObject>>;
  units?: Readonly<Record<string, string>>;
}
export const FieldOverrides = createContext<FieldOverrides>({});

interface FieldProps {
  field: FieldSpec;
  place: FieldPlace;
  value: DraftValue;
  onChange: (value: DraftValue) => void;
  errors: PlanErrors;
}

export const child = (place: FieldPlace, key: string, variant?: string): FieldPlace => ({
  path: `${place.path ? `${place.path}.` : ""}${key}`,
  textKey: childKey(place.textKey, key, variant),
  variants: variant ? [...place.variants, variant] : place.variants,
});

const asText = (value: DraftValue) =>
  typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);

export interface ObjectFieldsProps {
  fields: FieldSpec[];
  place: FieldPlace;
  value: DraftObject;
  onChange: (value: DraftObject) => void;
  errors: PlanErrors;
}

/** The fields of an object: required ones in a grid, optional ones under "Options" (open when one is set or wrong, or all are optional). */
export function ObjectFields({ fields, place, value, onChange, errors }: ObjectFieldsProps) {
  const render = (field: FieldSpec) => (
    <SchemaField
      key={field.key}
      field={field}
      place={child(place, field.key)}
      value={value[field.key]}
      errors={errors}
      onChange={(next) => onChange({ ...value, [field.key]: next })}
    />
  );
  const simple = (field: FieldSpec) =>
    ["integer", "number", "string", "choice", "boolean", "scalar", "number-list"].includes(field.node.kind);
  const textOf = (field: FieldSpec) => fieldText(child(place, field.key).textKey, place.variants);
  const shown = fields.filter((field) => !textOf(field).hidden);
  const main = shown.filter((field) => field.required || field.defaultValue !== undefined || textOf(field).prominent);
  const options = shown.filter((field) => !main.includes(field));
  // Once open (by the user, or because a field was set) the options stay open: clearing the last one must not
  // fold away the box being typed in.
  const [opened, setOpened] = useState(false);
  const used = options.some(
    (field) =>
      (value[field.key] !== undefined &&
        value[field.key] !== "" &&
        !(Array.isArray(value[field.key]) && (value[field.key] as unknown[]).length === 0)) ||
      Object.keys(errors).some((path) => path.startsWith(`${place.path}.${field.key}`)),
  );
  // Opened because a field was set counts as opened too (the toggle event of an initially open box is not relied on).
  if (used && !opened) setOpened(true);
  return (
    <>
      <div className="form-grid">{main.filter(simple).map(render)}</div>
      {main.filter((field) => !simple(field)).map(render)}
      {options.length > 0 && (
        <details
          className="options"
          open={used || opened || main.length === 0 || undefined}
          onToggle={(event) => setOpened(event.currentTarget.open)}
        >
          <summary>
            Options{" "}
            <span className="muted">
              (
              {options
                .map((field) => fieldText(child(place, field.key).textKey, place.variants).label.toLowerCase())
                .join(", ")}
              )
            </span>
          </summary>
          <div className="form-grid">{options.filter(simple).map(render)}</div>
          {options.filter((field) => !simple(field)).map(render)}
        </details>
      )}
    </>
  );
}

/** The fields of a field's own object value (an object's, an optional group's, a chosen variant's), at `place`. */
function OwnFields({ of, fields, place = of.place }: { of: FieldProps; fields: FieldSpec[]; place?: FieldPlace }) {
  return (
    <ObjectFields
      fields={fields}
      place={place}
      value={(of.value ?? {}) as DraftObject}
      onChange={of.onChange}
      errors={of.errors}
    />
  );
}

function UnionField(props: FieldProps & { node: Extract<NodeSpec, { kind: "union" | "keyed-union" }> }) {
  const { field, place, value, onChange, errors, node } = props;
  // The chooser is named by its discriminator's text ("Protocol", "Scenario type"), else by the field ("Framing").
  // A keyed union (a reply rule) has no discriminator: its chooser stands for the field itself.
  const keyed = node.kind === "keyed-union";
  const tagKey = keyed ? place.textKey : `${place.textKey}.${node.discriminator}`;
  const text = hasFieldText(tagKey, place.variants)
    ? fieldText(tagKey, place.variants)
    : fieldText(place.textKey, place.variants);
  const tagPath = keyed ? place.path : `${place.path}.${node.discriminator}`;
  const id = fieldId(tagPath);
  const variant = variantFor(node, value);
  const error = errors[tagPath] ?? errors[place.path];
  const hint = text.hint;
  const inner =
    variant &&
    (keyed
      ? place
      : { ...place, textKey: `${place.textKey}.${variant.value}`, variants: [...place.variants, variant.value] });
  return (
    <div className="subsection" data-testid={`union-${fieldId(place.path)}`}>
      <div className="field">
        <label htmlFor={id}>{text.label}</label>
        <select
          id={id}
          value={variant?.value ?? ""}
          aria-describedby={describedBy(id, { hint, error })}
          aria-invalid={error ? true : undefined}
          onChange={(event) =>
            onChange(
              event.target.value === ""
                ? undefined
                : initialVariant(node, event.target.value, place.textKey, keyed ? {} : value),
            )
          }
        >
          {!field.required && (
            <option value="">{text.empty ?? blankChoiceText(place.textKey, place.variants, field.defaultValue)}</option>
          )}
          {node.variants.map((option) => (
            <option key={option.value} value={option.value}>
              {variantLabel(place.textKey, place.variants, option.value, keyed)}
            </option>
          ))}
        </select>
        <Described id={id} hint={hint} error={error} />
      </div>
      {variant && inner && variant.fields.length > 0 && <OwnFields of={props} fields={variant.fields} place={inner} />}
    </div>
  );
}

function OptionalGroup(props: FieldProps & { node: Extract<NodeSpec, { kind: "object" }> }) {
  const { place, value, onChange, errors, node } = props;
  const text = fieldText(place.textKey, place.variants);
  const id = fieldId(place.path);
  const on = value !== undefined;
  return (
    <div className="subsection">
      <div className="checkbox">
        <input
          id={`${id}-on`}
          type="checkbox"
          checked={on}
          onChange={(event) => onChange(event.target.checked ? initialValue(node, place.textKey) : undefined)}
          aria-describedby={text.hint ? `${id}-hint` : undefined}
        />
        <label htmlFor={`${id}-on`}>{text.label}</label>
        {text.hint && (
          <span className="hint" id={`${id}-hint`}>
            {text.hint}
          </span>
        )}
      </div>
      {errors[place.path] && <p className="field-error">{errors[place.path]}</p>}
      {on && <OwnFields of={props} fields={node.fields} />}
    </div>
  );
}

function ListField({
  field,
  place,
  value,
  onChange,
  errors,
  node,
}: FieldProps & { node: Extract<NodeSpec, { kind: "object-list" }> }) {
  const text = fieldText(place.textKey, place.variants);
  const items = Array.isArray(value) ? (value as DraftObject[]) : [];
  const itemName = text.itemName ?? text.label.replace(/s$/, "").toLowerCase();
  const newItem = useContext(FieldOverrides).newItem?.[place.textKey];
  const itemKeys = useItemKeys();
  return (
    <fieldset className="subsection" data-testid={`list-${fieldId(place.path)}`}>
      <legend>{text.label}</legend>
      {text.hint && <p className="hint">{text.hint}</p>}
      {errors[place.path] && <p className="field-error">{errors[place.path]}</p>}
      {items.map((item, index) => (
        <div className="list-item" key={itemKeys.keyOf(item)}>
          <ObjectFields
            fields={node.item.fields}
            place={{ ...place, path: `${place.path}.${index}` }}
            value={item}
            errors={errors}
            onChange={(next) => {
              itemKeys.carry(item, next);
              onChange(items.map((old, i) => (i === index ? next : old)));
            }}
          />
          <button
            className="button small"
            type="button"
            onClick={() => onChange(items.filter((_, i) => i !== index))}
            disabled={field.required && items.length <= node.minItems}
          >
            Remove {itemName} {index + 1}
          </button>
        </div>
      ))}
      <button
        className="button small"
        type="button"
        onClick={() => onChange([...items, { ...(initialValue(node.item, place.textKey) as DraftObject), ...newItem }])}
      >
        Add {itemName}
      </button>
    </fieldset>
  );
}

/** One plan field, drawn from its schema node: inputs, selects, checkboxes, nested groups and lists. */
export function SchemaField(props: FieldProps) {
  const { field, place, value, onChange, errors } = props;
  const { node } = field;
  const text = fieldText(place.textKey, place.variants);
  const id = fieldId(place.path);
  const error = errors[place.path];
  const hint =
    field.required || node.kind === "choice" || node.kind === "boolean"
      ? text.hint
      : [text.hint, "Optional."].filter(Boolean).join(" ");
  const aria = {
    "aria-describedby": describedBy(id, { unit: text.unit, hint, error }),
    "aria-invalid": error ? true : undefined,
  };
  const choices = useContext(FieldOverrides).choices?.[place.textKey];
  // A wide box of a few lines: a list typed one item a line, or a long text; a text's spelling is not checked.
  const textBox = (boxHint: string | undefined, spellCheck?: false) => (
    <div className="field wide">
      <label htmlFor={id}>{text.label}</label>
      <textarea
        id={id}
        rows={2}
        value={asText(value)}
        onChange={(event) => onChange(event.target.value)}
        spellCheck={spellCheck}
        {...aria}
      />
      <Described id={id} hint={boxHint} error={error} />
    </div>
  );

  if (place.textKey === SCRIPT_FIELD) return <ScriptField {...props} />;
  // A text field the form offers choices for (an SLO's cohort: the plan's cohorts) is a select like a choice.
  if (choices && node.kind === "string")
    return <SchemaField {...props} field={{ ...field, node: { kind: "choice", options: [...choices] } }} />;
  switch (node.kind) {
    case "union":
    case "keyed-union":
      return <UnionField {...props} node={node} />;
    case "union-list":
      // The list's items are object fields again: handed down, so that the list's module need not import this one.
      return <UnionListField {...props} node={node} ObjectFields={ObjectFields} />;
    case "object":
      return field.required ? (
        <fieldset className="subsection">
          <legend>{text.label}</legend>
          <OwnFields of={props} fields={node.fields} />
        </fieldset>
      ) : (
        <OptionalGroup {...props} node={node} />
      );
    case "object-list":
      return <ListField {...props} node={node} />;
    case "string-record":
      return (
        <div className="field wide">
          <LabelEditor
            idPrefix={id}
            legend={text.label}
            hint={text.hint}
            noun={text.noun}
            rows={Array.isArray(value) ? (value as LabelRow[]) : []}
            errors={error ? { form: error } : {}}
            onChange={onChange}
          />
        </div>
      );
    case "string-list":
      return textBox(hint ?? "One per line.");
    case "choice":
    case "boolean": {
      const schemaChoices = node.kind === "choice" ? node.options.map(String) : ["true", "false"];
      const listed = choices ? [...choices] : schemaChoices;
      // A value the list does not name (an SLO metric set in the YAML view) stays visible and selected.
      const options = asText(value) !== "" && !listed.includes(asText(value)) ? [...listed, asText(value)] : listed;
      if (node.kind === "boolean" && field.required) {
        return (
          <div className="checkbox">
            <input
              id={id}
              type="checkbox"
              checked={value === "true"}
              onChange={(event) => onChange(String(event.target.checked))}
              {...aria}
            />
            <label htmlFor={id}>{text.label}</label>
            <Described id={id} hint={hint} error={error} />
          </div>
        );
      }
      return (
        <div className="field">
          <label htmlFor={id}>{text.label}</label>
          <select id={id} value={asText(value)} onChange={(event) => onChange(event.target.value)} {...aria}>
            {(!field.required || asText(value) === "") && (
              <option value="">
                {field.required ? "choose one" : blankChoiceText(place.textKey, place.variants, field.defaultValue)}
              </option>
            )}
            {options.map((option) => (
              <option key={option} value={option}>
                {node.kind === "boolean"
                  ? option === "true"
                    ? "yes"
                    : "no"
                  : place.textKey === "slos.metric"
                    ? metricName(option)
                    : option}
              </option>
            ))}
          </select>
          <Described id={id} hint={hint} error={error} />
        </div>
      );
    }
    case "unsupported":
      return (
        <div className="field wide">
          <span className="label-like">{text.label}</span>
          <p className="hint">
            {value === undefined ? "Not set." : <code>{JSON.stringify(value)}</code>} Edit this in the YAML or JSON
            view.
          </p>
          {error && <p className="field-error">{error}</p>}
        </div>
      );
    case "string":
      if (field.key === "hex" || field.key.endsWith("Hex"))
        return (
          <HexTextField
            id={id}
            label={text.label}
            hint={hint}
            error={error}
            value={asText(value)}
            onChange={onChange}
          />
        );
      if (text.multiline) return textBox(hint, false);
      return <TextInput {...props} />;
    default:
      return <TextInput {...props} />;
  }
}

/** A script scenario's script: the organisation's stored scripts to choose from, not the raw `{ path } | { sha256 }` union. */
const SCRIPT_FIELD = "scenario.script.script";

function ScriptField({ place, value, onChange, errors }: FieldProps) {
  const text = fieldText(place.textKey, place.variants);
  const empty = typeof value === "object" && value !== null && (value as { path?: unknown }).path === "";
  const error = errors[place.path] ?? errors[`${place.path}.sha256`] ?? errors[`${place.path}.path`];
  return (
    <ScriptPickerField
      id={fieldId(place.path)}
      label={text.label}
      hint={text.hint}
      error={error && empty ? "choose a script from the list" : error}
      value={value}
      onChange={onChange}
    />
  );
}

/** A one-line input; numbers open the numeric keyboard. */
function TextInput({ field, place, value, onChange, errors }: FieldProps) {
  const { node } = field;
  const text = fieldText(place.textKey, place.variants);
  const id = fieldId(place.path);
  const error = errors[place.path];
  const unit = useContext(FieldOverrides).units?.[place.path] ?? text.unit;
  const hint =
    [text.hint, text.limits ? limitsText(node, unit) : undefined, field.required ? undefined : "Optional."]
      .filter(Boolean)
      .join(" ") || undefined;
  const aria = { "aria-describedby": describedBy(id, { unit, hint, error }), "aria-invalid": error ? true : undefined };
  const inputMode =
    node.kind === "integer" || node.kind === "number-list" ? "numeric" : node.kind === "number" ? "decimal" : undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{text.label}</label>
      <div className="input-row">
        <input
          id={id}
          name={id}
          type="text"
          inputMode={inputMode}
          value={asText(value)}
          onChange={(event) => onChange(event.target.value)}
          autoComplete="off"
          {...aria}
        />
        <Described id={id} unit={unit} />
      </div>
      <Described id={id} hint={hint} error={error} />
    </div>
  );
}
