import { describe, expect, it } from "vitest";
import type { SeriesPoint } from "./snapshot";
import { judgeSlos, measuredOfPoint } from "./slo-judge";

const point = (t: number, p99: number | null): SeriesPoint => ({
  t, agents: 1, clients: 10, connections: 10, messagesSentPerSec: 100, messagesReceivedPerSec: 100, bytesSentPerSec: 0,
  bytesReceivedPerSec: 0, errors: 0, rttP50Ms: 1, rttP99Ms: p99, rttMaxMs: p99,
});

describe("SLO verdicts", () => {
  it("judges the whole run and counts the seconds that broke, with the first one", () => {
    const [verdict] = judgeSlos([{ metric: "rtt-p99-ms", below: 10 }], measuredOfPoint(point(0, 8)), [point(1, 5), point(2, 12), point(3, 15), point(4, null)]);
    expect(verdict).toEqual({ metric: "rtt-p99-ms", below: 10, value: 8, status: "met", passed: true, breachedSeconds: 2, measuredSeconds: 3, firstBreachAt: 2 });
  });

  it("fails an SLO the run never measured instead of passing it silently", () => {
    const [verdict] = judgeSlos([{ metric: "rtt-corrected-p99-ms", below: 10 }], measuredOfPoint(point(0, 1)), []);
    expect(verdict?.passed).toBe(false);
    expect(verdict?.value).toBeNull();
    expect(verdict?.status).toBe("no-data");
  });
});
