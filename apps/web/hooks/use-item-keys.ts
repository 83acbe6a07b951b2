import { useRef } from "react";

/**
 * Keys for a list of draft objects that can be edited, removed and moved (the plan form's lists): a key belongs to
 * an item object, and `carry` hands it on to the object that replaces it after an edit, so an input keeps its focus
 * while typing, and moving or removing an item moves its DOM with it (a key from the position would not).
 */
export function useItemKeys() {
  const keys = useRef(new WeakMap<object, string>());
  const next = useRef(0);
  return {
    keyOf(item: object): string {
      let key = keys.current.get(item);
      if (key === undefined) {
        next.current += 1;
        key = `item-${next.current}`;
        keys.current.set(item, key);
      }
      return key;
    },
    carry(from: object, to: object): void {
      const key = keys.current.get(from);
      if (key !== undefined) keys.current.set(to, key);
    },
  };
}
