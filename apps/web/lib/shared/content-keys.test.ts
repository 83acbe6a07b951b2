import { describe, expect, it } from "vitest";
import { keyedByContent } from "./content-keys";

describe("keys from a list's content", () => {
  it("keys each item by what it shows, numbering repeats, so a key stays with its item when the head changes", () => {
    const events = [
      { at: 1, kind: "start" },
      { at: 2, kind: "lost" },
      { at: 2, kind: "lost" },
    ];
    const keyed = keyedByContent(events, (e) => `${e.at}-${e.kind}`);
    expect(keyed.map((k) => k.key)).toEqual(["1-start", "2-lost", "2-lost#2"]);
    expect(keyed.map((k) => k.index)).toEqual([0, 1, 2]);
    // The first event gone (a list cut to its newest): the others keep their keys.
    expect(keyedByContent(events.slice(1), (e) => `${e.at}-${e.kind}`).map((k) => k.key)).toEqual([
      "2-lost",
      "2-lost#2",
    ]);
  });
});
