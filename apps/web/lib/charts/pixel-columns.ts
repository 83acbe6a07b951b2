// What a run chart draws when it holds more seconds than its plot has pixels: an hour is 3,600 points a line on a
// plot about 1,000 px wide, and uPlot's setData, y range and paths walk every one of them on the first paint. Two rows
// per pixel column draw the same picture: each line's lowest and highest second of the column, in the order they came,
// so a one-second spike still reaches its height (an average per column would flatten it). The legend does not read
// these rows: `exactValue` looks its second up in the full columns.

/** Column-wise data as uPlot wants it: x (epoch seconds, ascending) then one array per line. */
export type Columns = readonly ArrayLike<number | null | undefined>[];

/**
 * `columns` cut to at most two rows per pixel column of a plot `pixels` wide showing x in `range`; the same object
 * when it has no more than two rows a pixel already (a zoomed range, a short run), so every second is drawn.
 * Each row's x is a second of its column (its first, then its last), and each line's two values are the column's
 * lowest and highest, the earlier of the two first. A column with no value of a line gives it null in both rows;
 * a gap narrower than a pixel column is not drawn (it could not be seen).
 */
export function pixelColumns(columns: Columns, range: readonly [number, number] | null, pixels: number): Columns {
  const xs = columns[0] as ArrayLike<number> | undefined;
  if (!xs || !range || pixels <= 0 || xs.length <= 2 * pixels || range[1] <= range[0]) return columns;
  const perSecond = pixels / (range[1] - range[0]);
  const lines = columns.length - 1;
  const out: (number | null)[][] = columns.map(() => []);
  // The range's last second belongs to the last pixel column, not one past it.
  const columnOf = (x: number) => Math.min(pixels - 1, Math.floor((x - range[0]) * perSecond));
  let start = 0;
  while (start < xs.length) {
    const column = columnOf(xs[start]!);
    let end = start + 1;
    while (end < xs.length && columnOf(xs[end]!) === column) end++;
    if (end - start <= 2) {
      for (let row = start; row < end; row++)
        for (let index = 0; index < columns.length; index++) out[index]!.push(columns[index]![row] ?? null);
    } else {
      out[0]!.push(xs[start]!, xs[end - 1]!);
      for (let line = 1; line <= lines; line++) pushLowHigh(out[line]!, columns[line]!, start, end);
    }
    start = end;
  }
  return out;
}

/** The lowest and highest of `values[start..end)`, in the order they came; null twice when there is none. */
function pushLowHigh(out: (number | null)[], values: Columns[number], start: number, end: number) {
  let low = -1;
  let high = -1;
  for (let row = start; row < end; row++) {
    const value = values[row];
    if (value == null) continue;
    if (low < 0 || value < values[low]!) low = row;
    if (high < 0 || value > values[high]!) high = row;
  }
  if (low < 0) out.push(null, null);
  else if (low <= high) out.push(values[low]!, values[high]!);
  else out.push(values[high]!, values[low]!);
}

/** The index of second `x` in ascending `xs`, or -1. */
function indexOf(xs: Columns[number], x: number): number {
  let low = 0;
  let high = xs.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const at = xs[middle]!;
    if (at === x) return middle;
    if (at < x) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

/**
 * What the legend shows for line `line` (1-based, as uPlot counts series) at row `row` of the drawn columns: the
 * full columns' value at that row's second, exact even where the drawn row holds a pixel column's low or high.
 */
export function exactValue(drawn: Columns, full: Columns, line: number, row: number | null): number | null {
  if (row === null) return null;
  if (drawn === full) return full[line]?.[row] ?? null;
  const x = drawn[0]?.[row];
  const at = x == null ? -1 : indexOf(full[0]!, x);
  return at < 0 ? (drawn[line]?.[row] ?? null) : (full[line]?.[at] ?? null);
}
