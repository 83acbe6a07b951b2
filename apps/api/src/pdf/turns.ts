/** At most `limit` holders at once; the others wait, and get their turn in the order they asked. */
export function createTurns(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return {
    /** Resolves with the function that gives the turn back (call it exactly once). */
    async take(): Promise<() => void> {
      if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
      else running++;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        const next = waiting.shift();
        if (next)
          next(); // the turn passes straight on: `running` stays the same
        else running--;
      };
    },
    /** How many hold a turn, and how many wait for one. */
    counts: () => ({ running, waiting: waiting.length }),
  };
}
