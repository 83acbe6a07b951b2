// A plan problem as the error summary says it: the field by its labels as the form shows them ("Load › Clients",
// "SLOs › SLO 2 › Metric") rather than its schema path, its message from problemMessage (plan-draft.ts).
import { PLAN_NODE, type PlanDraft } from "./plan-draft";
import { fieldText } from "./plan-field-text";
import { childKey, variantFor } from "./schema-form";
import type { FieldSpec, NodeSpec } from "./schema-node";

/** Section headings of the plan form, where they say more than the field's own label. */
const SECTION_TITLES: Record<string, string> = { slos: "SLOs" };

/** "Load › Clients" for `load.clients`, with the draft's union choices (scenario kind) picking the right labels. */
export function problemLabel(path: string, draft: PlanDraft): string {
  if (path === "form") return "";
  const labels: string[] = [];
  let fields: readonly FieldSpec[] = PLAN_NODE.fields;
  let node: NodeSpec | null = null;
  let value: unknown = draft;
  let textKey = "";
  let variants: string[] = [];
  for (const part of path.split(".")) {
    if (node && (node.kind === "object-list" || node.kind === "union-list") && /^\d+$/.test(part)) {
      labels.push(`${fieldText(textKey, variants).itemName ?? "item"} ${Number(part) + 1}`);
      value = Array.isArray(value) ? (value as unknown[])[Number(part)] : undefined;
      node = node.item as NodeSpec;
    }
    if (node && (node.kind === "union" || node.kind === "keyed-union")) {
      const variant = variantFor(node, value);
      if (node.kind === "union" && part === node.discriminator) {
        labels.push(fieldText(`${textKey}.${part}`, variants).label);
        break;
      }
      if (!variant) break;
      if (node.kind === "union") {
        textKey = `${textKey}.${variant.value}`;
        variants = [...variants, variant.value];
      }
      fields = variant.fields;
      node = null;
    } else if (node?.kind === "object") {
      fields = node.fields;
      node = null;
    }
    if (/^\d+$/.test(part)) continue;
    const field = fields.find((candidate) => candidate.key === part);
    if (!field) {
      labels.push(part);
      break;
    }
    textKey = childKey(textKey, part);
    labels.push(SECTION_TITLES[textKey] ?? fieldText(textKey, variants).label);
    node = field.node;
    value = typeof value === "object" && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return labels.join(" › ");
}
