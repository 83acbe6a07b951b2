// Where a chart's words go (an SLO's "SLO: Round trip p99 < 50 ms", a marker's "aborted"), so none is written over
// another or across an SLO's dashed line: each label tries its places in order and takes the first that is free.
// Pure; the run charts and a plan's trend draw with it (series-chart.tsx).

export interface Box {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** A label to place: its size, and where it may go (top-left corners), best first. */
export interface LabelRequest {
  width: number;
  height: number;
  places: readonly { left: number; top: number }[];
}

const overlaps = (a: Box, b: Box) =>
  a.left < b.left + b.width && b.left < a.left + a.width && a.top < b.top + b.height && b.top < a.top + a.height;

/**
 * Each label at the first of its places that overlaps neither a label placed before it nor an obstacle (a line the
 * chart draws); at its first place when none is free. Labels are placed in the order given: earlier ones win.
 */
export function placeLabels(labels: readonly LabelRequest[], obstacles: readonly Box[] = []): Box[] {
  const placed: Box[] = [];
  for (const label of labels) {
    const boxes = label.places.map((place) => ({ ...place, width: label.width, height: label.height }));
    const free = boxes.find(
      (box) => !placed.some((other) => overlaps(box, other)) && !obstacles.some((line) => overlaps(box, line)),
    );
    placed.push(free ?? boxes[0]!);
  }
  return placed;
}

/** How many pairs of boxes overlap: 0 when every label is readable. */
export function overlapCount(boxes: readonly Box[]): number {
  let count = 0;
  for (let i = 0; i < boxes.length; i++)
    for (let j = i + 1; j < boxes.length; j++) if (overlaps(boxes[i]!, boxes[j]!)) count += 1;
  return count;
}

/** The places down a column from `top` to `bottom`, one line of `step` at a time: where a marker's word may sit along its line. */
export function columnPlaces(left: number, top: number, bottom: number, step: number): { left: number; top: number }[] {
  const places: { left: number; top: number }[] = [];
  for (let y = top; y <= bottom; y += step) places.push({ left, top: y });
  return places.length ? places : [{ left, top }];
}
