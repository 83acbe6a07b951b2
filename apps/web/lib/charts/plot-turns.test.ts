import { describe, expect, it } from "vitest";
import { plotTurns, type PlotTurnsHost } from "./plot-turns";

/** A page to drive by hand: which elements the "browser" says are on screen, and the idle moments it grants. */
function page() {
  const watchers = new Map<string, (onScreen: boolean, width: number) => void>();
  const idles: (() => void)[] = [];
  const stopped: string[] = [];
  const host: PlotTurnsHost = {
    observe(element, seen) {
      const id = (element as unknown as { id: string }).id;
      watchers.set(id, seen);
      return () => stopped.push(id);
    },
    idle: (run) => idles.push(run),
  };
  return {
    turns: plotTurns(host),
    /** The browser's first layout: each chart on screen or not, at 600 px. */
    seen: (id: string, onScreen: boolean) => watchers.get(id)?.(onScreen, 600),
    idle: () => idles.shift()?.(),
    idles,
    stopped,
  };
}

const chart = (id: string) => ({ id }) as unknown as Element;

describe("plotTurns", () => {
  it("creates the charts on screen at first sight and the others one per idle moment, in page order", () => {
    const browser = page();
    const created: string[] = [];
    const waiting: string[] = [];
    for (const id of ["connections", "messages", "rtt", "bytes"])
      browser.turns.add(
        chart(id),
        (width) => created.push(`${id}@${width}`),
        () => waiting.push(id),
      );
    for (const [id, onScreen] of [
      ["connections", true],
      ["messages", true],
      ["rtt", false],
      ["bytes", false],
    ] as const)
      browser.seen(id, onScreen);
    expect(created).toEqual(["connections@600", "messages@600"]);
    expect(waiting).toEqual(["rtt", "bytes"]);
    browser.idle();
    expect(created).toEqual(["connections@600", "messages@600", "rtt@600"]);
    browser.idle();
    expect(created).toEqual(["connections@600", "messages@600", "rtt@600", "bytes@600"]);
    expect(browser.idles).toHaveLength(0);
    expect(browser.stopped.sort()).toEqual(["bytes", "connections", "messages", "rtt"]);
  });

  it("creates a waiting chart once when it is scrolled into view before its turn, and not again on the turn", () => {
    const browser = page();
    const created: string[] = [];
    browser.turns.add(chart("rtt"), () => created.push("rtt"));
    browser.turns.add(chart("bytes"), () => created.push("bytes"));
    browser.seen("rtt", false);
    browser.seen("bytes", false);
    browser.seen("bytes", true);
    expect(created).toEqual(["bytes"]);
    browser.idle();
    browser.idle();
    expect(created).toEqual(["bytes", "rtt"]);
  });

  it("never creates a chart that left the page before its turn", () => {
    const browser = page();
    const created: string[] = [];
    const cancel = browser.turns.add(chart("rtt"), () => created.push("rtt"));
    browser.seen("rtt", false);
    cancel();
    browser.idle();
    browser.seen("rtt", true);
    expect(created).toEqual([]);
    expect(browser.stopped).toEqual(["rtt"]);
  });
});
