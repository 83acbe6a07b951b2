import { CopyButton } from "./copy-button";

/** A command or file to paste, with its copy button; long shell lines wrap, YAML keeps its layout. */
export function CodeBlock({
  text,
  label,
  testId,
  wrap = true,
}: {
  text: string;
  label: string;
  testId: string;
  wrap?: boolean;
}) {
  return (
    <div className="command">
      {/* biome-ignore lint/a11y/useAriaPropsSupportedByRole: a pre that scrolls is named for screen readers; axe checks it in the journeys. */}
      <pre className={wrap ? "wrap" : "scroll"} tabIndex={wrap ? undefined : 0} aria-label={wrap ? undefined : label}>
        <code data-testid={testId}>{text}</code>
      </pre>
      <CopyButton text={text} label={label} />
    </div>
  );
}
