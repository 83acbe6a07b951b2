import type { ReactNode } from "react";

/**
 * The shell every list table repeats: scroll wrapper, a caption for screen readers, and a header row. A column
 * named "" is the actions column (its header is read as "Actions" but not shown). Rows come as children.
 */
export function DataTable({ caption, columns, testId, children }: { caption: string; columns: readonly string[]; testId: string; children: ReactNode }) {
  return (
    <div className="table-wrap">
      <table className="data" data-testid={testId}>
        <caption className="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th scope="col" key={`${column}-${index}`}>
                {column || <span className="sr-only">Actions</span>}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}
