import { describe, expect, it } from "vitest";
import { DEFAULT_PLAN_FORM, errorsByField, expectedMessagesPerSec, validatePlanForm } from "./plan-form";

describe("validatePlanForm", () => {
  it("accepts the defaults once the plan has a name", () => {
    const result = validatePlanForm({ ...DEFAULT_PLAN_FORM, name: "Lobby" });
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.spec.load).toEqual({ clients: 100, durationSec: 30, rampUpSec: 0 });
  });

  it("puts each schema error next to its field", () => {
    const result = validatePlanForm({ ...DEFAULT_PLAN_FORM, name: "x", url: "http://nope", clients: "0" });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.url).toMatch(/ws:\/\//);
      expect(result.errors.clients).toBe("must be at least 1");
      expect(result.errors.form).toBeUndefined();
    }
  });

  it("says 'enter a whole number' for text in a number field rather than a NaN message", () => {
    const result = validatePlanForm({ ...DEFAULT_PLAN_FORM, name: "x", intervalMs: "fast" });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors.intervalMs).toBe("enter a whole number");
  });
});

describe("errorsByField", () => {
  it("maps the API's 400 field paths onto the form and keeps unknown ones for the form banner", () => {
    expect(
      errorsByField([
        { path: "load.durationSec", message: "too long" },
        { path: "target.protocol", message: "unsupported" },
      ]),
    ).toEqual({ durationSec: "too long", form: "target.protocol: unsupported" });
  });
});

describe("expectedMessagesPerSec", () => {
  it("is clients × pings per second, and null while the inputs make no sense", () => {
    expect(expectedMessagesPerSec({ ...DEFAULT_PLAN_FORM, clients: "10", intervalMs: "200" })).toBe(50);
    expect(expectedMessagesPerSec({ ...DEFAULT_PLAN_FORM, clients: "", intervalMs: "200" })).toBeNull();
  });
});
