"use client";

import { type ComponentType, useState } from "react";
import { fieldText, variantLabel } from "../../lib/plans/plan-field-text";
import { fieldId, type PlanErrors } from "../../lib/plans/plan-draft";
import { initialVariant, moveItem, variantFor, type DraftObject, type DraftValue } from "../../lib/plans/schema-form";
import type { FieldSpec, NodeSpec } from "../../lib/plans/schema-node";
import type { FieldPlace, ObjectFieldsProps } from "./schema-field";
import { useItemKeys } from "../../hooks/use-item-keys";

interface UnionListProps {
  field: FieldSpec;
  place: FieldPlace;
  value: DraftValue;
  onChange: (value: DraftValue) => void;
  errors: PlanErrors;
  node: Extract<NodeSpec, { kind: "union-list" }>;
  /** How an item's fields are drawn: schema-field's ObjectFields, passed in because the plan form is recursive. */
  ObjectFields: ComponentType<ObjectFieldsProps>;
}

/** An ordered list of a union's variants (session steps): add one of a chosen kind, change an item's kind, remove, move up and down. */
export function UnionListField({ place, value, onChange, errors, node, ObjectFields }: UnionListProps) {
  const text = fieldText(place.textKey, place.variants);
  const id = fieldId(place.path);
  const items = Array.isArray(value) ? (value as DraftObject[]) : [];
  const itemName = text.label.replace(/s$/, "").toLowerCase();
  const label = (kind: string) => variantLabel(place.textKey, place.variants, kind);
  const [adding, setAdding] = useState(node.item.variants[0]?.value ?? "");
  const full = node.maxItems !== undefined && items.length >= node.maxItems;
  const set = (next: DraftObject[]) => onChange(next.length === 0 && node.minItems === 0 ? undefined : next);
  const itemKeys = useItemKeys();
  /** Item `index` replaced by `next`, which keeps its key (an edit, a change of kind), not a new item's. */
  const replace = (index: number, next: DraftObject) => {
    itemKeys.carry(items[index]!, next);
    set(items.map((old, i) => (i === index ? next : old)));
  };
  const listError = errors[place.path];

  return (
    <fieldset
      className="subsection union-list"
      data-testid={`list-${id}`}
      aria-describedby={text.hint ? `${id}-hint` : undefined}
    >
      <legend>{text.label}</legend>
      {text.hint && (
        <p className="hint" id={`${id}-hint`}>
          {text.hint}
        </p>
      )}
      {listError && <p className="field-error">{listError}</p>}
      {items.length === 0 && <p className="muted">No {text.label.toLowerCase()}.</p>}
      {items.length > 0 && (
        <ol className="step-list">
          {items.map((item, index) => {
            const variant = variantFor(node.item, item);
            const path = `${place.path}.${index}`;
            const stepError = errors[path] ?? errors[`${path}.${node.item.discriminator}`];
            const title = `${itemName.charAt(0).toUpperCase()}${itemName.slice(1)} ${index + 1}: ${variant ? label(variant.value) : "unknown kind"}`;
            return (
              <li
                key={itemKeys.keyOf(item)}
                className="list-item"
                data-testid="union-list-item"
                data-kind={variant?.value ?? ""}
                aria-label={title}
              >
                <div className="list-item-head">
                  <strong>{title}</strong>
                  <span className="item-actions">
                    {/* Another kind in place keeps the fields both kinds share (a timeout, a message), unlike remove and add. */}
                    <select
                      className="small"
                      aria-label={`Kind of ${itemName} ${index + 1}`}
                      value={variant?.value ?? ""}
                      onChange={(event) =>
                        replace(index, initialVariant(node.item, event.target.value, place.textKey, item))
                      }
                    >
                      {!variant && <option value="">unknown kind</option>}
                      {node.item.variants.map((option) => (
                        <option key={option.value} value={option.value}>
                          {label(option.value)}
                        </option>
                      ))}
                    </select>
                    <button
                      className="button small"
                      type="button"
                      aria-label={`Move ${itemName} ${index + 1} up`}
                      disabled={index === 0}
                      onClick={() => set(moveItem(items, index, index - 1))}
                    >
                      ↑ Up
                    </button>
                    <button
                      className="button small"
                      type="button"
                      aria-label={`Move ${itemName} ${index + 1} down`}
                      disabled={index === items.length - 1}
                      onClick={() => set(moveItem(items, index, index + 1))}
                    >
                      ↓ Down
                    </button>
                    <button
                      className="button small"
                      type="button"
                      aria-label={`Remove ${itemName} ${index + 1}`}
                      disabled={items.length <= node.minItems}
                      onClick={() => set(items.filter((_, i) => i !== index))}
                    >
                      Remove
                    </button>
                  </span>
                </div>
                {stepError && (
                  <p className="field-error" id={`${fieldId(path)}-error`}>
                    {stepError}
                  </p>
                )}
                {variant ? (
                  <ObjectFields
                    fields={variant.fields}
                    place={{
                      path,
                      textKey: `${place.textKey}.${variant.value}`,
                      variants: [...place.variants, variant.value],
                    }}
                    value={item}
                    errors={errors}
                    onChange={(next) => replace(index, { ...next, [node.item.discriminator]: variant.value })}
                  />
                ) : (
                  <p className="hint">
                    <code>{JSON.stringify(item)}</code> Edit this step in the YAML or JSON view.
                  </p>
                )}
              </li>
            );
          })}
        </ol>
      )}
      <div className="add-row">
        <div className="field">
          <label htmlFor={`${id}-add-kind`}>New {itemName}</label>
          <select id={`${id}-add-kind`} value={adding} onChange={(event) => setAdding(event.target.value)}>
            {node.item.variants.map((option) => (
              <option key={option.value} value={option.value}>
                {label(option.value)}
              </option>
            ))}
          </select>
        </div>
        <button
          className="button small"
          type="button"
          disabled={full}
          onClick={() => set([...items, initialVariant(node.item, adding, place.textKey)])}
        >
          Add {itemName}
        </button>
        {full && <span className="hint">At most {node.maxItems}.</span>}
      </div>
    </fieldset>
  );
}
