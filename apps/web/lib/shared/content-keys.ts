/**
 * React keys for a list whose items carry no id of their own and are only ever appended to or shown as given
 * (events, audit rows, error samples, parsed text): each item's own content, with "#2", "#3" on a repeat, so a key
 * names what is shown rather than where it stands. A key taken from the position would hand one row's DOM to
 * another when the list's head changes.
 */
export function keyedByContent<T>(
  items: readonly T[],
  contentOf: (item: T) => string,
): { item: T; key: string; index: number }[] {
  const seen = new Map<string, number>();
  return items.map((item, index) => {
    const content = contentOf(item);
    const count = (seen.get(content) ?? 0) + 1;
    seen.set(content, count);
    return { item, key: count === 1 ? content : `${content}#${count}`, index };
  });
}
