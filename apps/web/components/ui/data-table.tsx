import type { ReactNode } from "react";
import { keyedByContent } from "../../lib/shared/content-keys";

/** A column header: plain text, or text with a numeric alignment and a hover explanation. */
export type DataColumn = string | { label: ReactNode; key?: string; numeric?: boolean; title?: string };

/** Columns of figures, right-aligned: `numeric("Clients", "RTT p99")` for `{ label: "Clients", numeric: true }, …`. */
export function numeric(...labels: string[]): DataColumn[] {
  return labels.map((label) => ({ label, numeric: true }));
}

/**
 * The shell every list table repeats: scroll wrapper, a caption for screen readers, and a header row. A column
 * named "" is the actions column (its header is read as "Actions" but not shown). Rows come as children, so each
 * list keeps its own cells (links, chips, buttons) while the markup, classes and accessibility live here once.
 */
export function DataTable({
  caption,
  columns,
  testId,
  className,
  children,
}: {
  caption: string;
  columns: readonly DataColumn[];
  testId?: string;
  /** Extra classes on the table (and on its scroll wrapper as `${class}-wrap`), e.g. "compare-table". */
  className?: string;
  children: ReactNode;
}) {
  return (
    // A frame that may scroll sideways (on a phone) is a named region a keyboard can reach and scroll (axe's
    // scrollable-region-focusable): not every table has a link or button inside to focus.
    <section
      className={className ? `table-wrap ${className}-wrap` : "table-wrap"}
      aria-label={caption}
      // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard (above).
      tabIndex={0}
    >
      <table className={className ? `data ${className}` : "data"} data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {keyedByContent(columns, (column) =>
              typeof column === "string" ? column : (column.key ?? String(column.label)),
            ).map(({ item: column, key }) => {
              const header = typeof column === "string" ? { label: column } : column;
              return (
                <th scope="col" key={key} className={header.numeric ? "num" : undefined} title={header.title}>
                  {header.label === "" ? <span className="sr-only">Actions</span> : header.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </section>
  );
}
