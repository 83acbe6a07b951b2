import { describe, expect, it } from "vitest";
import { SeriesAnswer } from "./series-answer";
import { seriesPoint } from "./series-point.test-support";

const point = (t: number) => seriesPoint({ t });
const runId = "00000000-0000-4000-8000-000000000001";

describe("SeriesAnswer", () => {
  it("accepts a well-formed series", () => {
    const parsed = SeriesAnswer.safeParse({ runId, points: [point(1), point(2), point(3)] });
    expect(parsed.success && parsed.data.points.length).toBe(3);
  });

  it("names the first bad point by path: a drifted field in a sampled point, a missing t anywhere", () => {
    const drifted = SeriesAnswer.safeParse({ runId, points: [{ ...point(1), connections: "many" }, point(2)] });
    expect(!drifted.success && drifted.error.issues[0]!.path).toEqual(["points", 0, "connections"]);
    const noTime = SeriesAnswer.safeParse({ runId, points: [point(1), { agents: 1 }, point(3)] });
    expect(!noTime.success && noTime.error.issues[0]!.path).toEqual(["points", 1, "t"]);
    expect(SeriesAnswer.safeParse({ runId, points: null }).success).toBe(false);
  });
});
