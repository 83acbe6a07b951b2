import type { Extension, Facet } from "@codemirror/state";
import type { HoverTooltipSource } from "@codemirror/view";
import type { jsonCompletion } from "codemirror-json-schema";
import type { PlanFormat } from "../../lib/plans/plan-text";

type CompletionSource = ReturnType<typeof jsonCompletion>;

/** What differs between the YAML and JSON views: the grammar, and codemirror-json-schema's completion and hover for it. */
interface FormatSupport {
  language: Extension;
  /** The grammar's language data, which the completion is registered with. */
  data: Facet<{ [name: string]: unknown }>;
  completion: CompletionSource;
  hover: HoverTooltipSource;
}

/**
 * An enum value's completion shows its key's description as plain text, where the schema's markdown bold (the form's
 * label) would read as asterisks; a key's completion renders the markdown itself and is left alone.
 */
function plainInfo(source: CompletionSource): CompletionSource {
  return (context) => {
    const result = source(context);
    if (Array.isArray(result)) return result;
    return {
      ...result,
      options: result.options.map((option) =>
        typeof option.info === "string" ? { ...option, info: option.info.replace(/\*\*(.+?)\*\*/g, "$1") } : option,
      ),
    };
  };
}

/**
 * A plan text view's language with the plan's schema, loaded with the editor (never with the page): codemirror-json-schema
 * completes keys and enum values and explains a key on hover from the plan's JSON Schema; the markers are ours
 * (planTextMarkers), so they check with the API's own zod schema and say each problem in the form's words, not a
 * validator's, the same in YAML and JSON.
 */
async function planLanguage(format: PlanFormat, support: () => Promise<FormatSupport>): Promise<Extension> {
  const [
    { language, data, completion, hover },
    { stateExtensions },
    { linter, lintGutter },
    { hoverTooltip },
    { planJsonSchema },
    { planTextMarkers },
  ] = await Promise.all([
    support(),
    import("codemirror-json-schema"),
    import("@codemirror/lint"),
    import("@codemirror/view"),
    import("../../lib/plans/plan-json-schema"),
    import("../../lib/plans/plan-text-markers"),
  ]);
  return [
    language,
    data.of({ autocomplete: plainInfo(completion) }),
    hoverTooltip(hover),
    stateExtensions(planJsonSchema() as Parameters<typeof stateExtensions>[0]),
    lintGutter(),
    linter(
      (view) =>
        planTextMarkers(view.state.doc.toString(), format).map(({ from, to, message }) => ({
          from,
          to,
          message,
          severity: "error" as const,
          source: "plan",
        })),
      { delay: 300 },
    ),
  ];
}

export function planYamlLanguage(): Promise<Extension> {
  return planLanguage("yaml", async () => {
    const [{ yaml, yamlLanguage }, { yamlCompletion, yamlSchemaHover }] = await Promise.all([
      import("@codemirror/lang-yaml"),
      import("codemirror-json-schema/yaml"),
    ]);
    return { language: yaml(), data: yamlLanguage.data, completion: yamlCompletion(), hover: yamlSchemaHover() };
  });
}

export function planJsonLanguage(): Promise<Extension> {
  return planLanguage("json", async () => {
    const [{ json, jsonLanguage }, { jsonCompletion, jsonSchemaHover }, bestEffort] = await Promise.all([
      import("@codemirror/lang-json"),
      import("codemirror-json-schema"),
      import("best-effort-json-parser"),
    ]);
    // The completion's parser reads half-typed JSON, which is what an editor holds; it logged every such read as a console error.
    bestEffort.disableErrorLogging();
    return { language: json(), data: jsonLanguage.data, completion: jsonCompletion(), hover: jsonSchemaHover() };
  });
}
