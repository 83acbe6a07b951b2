import { describe, expect, it } from "vitest";
import { createTurns } from "./turns";

describe("PDF render turns", () => {
  it("lets `limit` renders hold a turn at once; the next waits, then gets a turn given back, first come first served", async () => {
    const turns = createTurns(2);
    const first = await turns.take();
    const second = await turns.take();
    const order: string[] = [];
    const third = turns.take().then((release) => {
      order.push("third");
      return release;
    });
    const fourth = turns.take().then((release) => {
      order.push("fourth");
      return release;
    });
    await Promise.resolve();
    expect(turns.counts()).toEqual({ running: 2, waiting: 2 });
    expect(order).toEqual([]);

    first();
    first(); // a second give-back of the same turn changes nothing
    const thirdRelease = await third;
    expect(order).toEqual(["third"]);
    expect(turns.counts()).toEqual({ running: 2, waiting: 1 });

    second();
    (await fourth)();
    thirdRelease();
    expect(turns.counts()).toEqual({ running: 0, waiting: 0 });
  });
});
