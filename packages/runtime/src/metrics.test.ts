import { describe, expect, it } from "vitest";
import { isLoopbackHost, metricsAccess, metricsScrapeAllowed } from "./metrics";

describe("who may read GET /metrics", () => {
  it("knows a loopback-only listener from one anyone can reach", () => {
    for (const host of ["127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"])
      expect(isLoopbackHost(host)).toBe(true);
    for (const host of ["0.0.0.0", "::", "10.0.0.5", "api.example.com", "128.0.0.1"])
      expect(isLoopbackHost(host)).toBe(false);
  });

  it("wants the token when one is set; without one, lets scrapes in only on a loopback listener", () => {
    const token = "t".repeat(24);
    expect(metricsScrapeAllowed(`Bearer ${token}`, metricsAccess(token, "0.0.0.0"))).toBe(true);
    expect(metricsScrapeAllowed(undefined, metricsAccess(token, "127.0.0.1"))).toBe(false);
    expect(metricsScrapeAllowed(undefined, metricsAccess(undefined, "127.0.0.1"))).toBe(true);
    expect(metricsScrapeAllowed(`Bearer anything`, metricsAccess(undefined, "0.0.0.0"))).toBe(false);
  });
});
