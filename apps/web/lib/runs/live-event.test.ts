import { describe, expect, it } from "vitest";
import { missedMessages, parseLiveEvent } from "./live-event";
import { seriesPoint } from "../shared/series-point.test-support";

const point = seriesPoint();

describe("parseLiveEvent", () => {
  it("reads a bare LiveMessage", () => {
    expect(parseLiveEvent(JSON.stringify({ type: "point", point }))).toEqual({
      seq: null,
      message: { type: "point", point },
    });
  });

  it("reads a numbered envelope", () => {
    expect(parseLiveEvent(JSON.stringify({ seq: 7, message: { type: "point", point } }))?.seq).toBe(7);
  });

  it("ignores what it cannot read instead of throwing", () => {
    expect(parseLiveEvent("not json")).toBeNull();
    expect(parseLiveEvent(JSON.stringify({ type: "point" }))).toBeNull();
  });
});

describe("missedMessages", () => {
  it("flags a gap or a restart in the numbering, not the first message or unnumbered ones", () => {
    expect(missedMessages(null, 5)).toBe(false);
    expect(missedMessages(5, 6)).toBe(false);
    expect(missedMessages(5, 7)).toBe(true);
    expect(missedMessages(5, 0)).toBe(true);
    expect(missedMessages(null, null)).toBe(false);
  });
});
