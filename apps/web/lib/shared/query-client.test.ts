import { describe, expect, it } from "vitest";
import { ApiError } from "./api-client";
import { shouldRetry } from "./query-client";

describe("shouldRetry", () => {
  it("asks again when the server was unreachable or failed, up to twice", () => {
    const unreachable = new ApiError(0, "unreachable", "down");
    const failed = new ApiError(503, "bad_response", "GET /api/agents failed with HTTP 503.");
    expect([0, 1, 2].map((failures) => shouldRetry(failures, unreachable))).toEqual([true, true, false]);
    expect(shouldRetry(0, failed)).toBe(true);
  });

  it("shows a 4xx or a contract drift at once: asking again answers the same", () => {
    for (const status of [400, 401, 403, 404, 409])
      expect(shouldRetry(0, new ApiError(status, "bad_response", "no"))).toBe(false);
    expect(shouldRetry(0, new ApiError(200, "bad_response", "unexpected body"))).toBe(false);
    expect(shouldRetry(0, new TypeError("not an API error"))).toBe(false);
  });
});
