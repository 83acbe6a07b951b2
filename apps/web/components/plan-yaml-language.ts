import type { Extension } from "@codemirror/state";

/**
 * YAML with the plan's schema, loaded with the editor (never with the page): codemirror-json-schema completes keys
 * and enum values and explains a key on hover from the plan's JSON Schema; the markers are ours (planYamlMarkers),
 * so they check with the API's own zod schema and say each problem in the form's words, not a validator's.
 */
export async function planYamlLanguage(): Promise<Extension> {
  const [{ yaml, yamlLanguage }, { yamlCompletion, yamlSchemaHover }, { stateExtensions }, { linter, lintGutter }, { hoverTooltip }, { planJsonSchema }, { planYamlMarkers }] =
    await Promise.all([
      import("@codemirror/lang-yaml"),
      import("codemirror-json-schema/yaml"),
      import("codemirror-json-schema"),
      import("@codemirror/lint"),
      import("@codemirror/view"),
      import("../lib/plan-json-schema"),
      import("../lib/plan-yaml-markers"),
    ]);
  return [
    yaml(),
    yamlLanguage.data.of({ autocomplete: yamlCompletion() }),
    hoverTooltip(yamlSchemaHover()),
    stateExtensions(planJsonSchema() as Parameters<typeof stateExtensions>[0]),
    lintGutter(),
    linter((view) => planYamlMarkers(view.state.doc.toString()).map(({ from, to, message }) => ({ from, to, message, severity: "error" as const, source: "plan" })), { delay: 300 }),
  ];
}
