// The PDF's HTML pieces every section uses: text made safe for the page, and a plain table.

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function table(head: string[], rows: string[][]): string {
  const cells = (tag: string, row: string[]) =>
    `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join("")}</tr>`;
  return `<table><thead>${cells("th", head)}</thead><tbody>${rows.map((row) => cells("td", row)).join("")}</tbody></table>`;
}
