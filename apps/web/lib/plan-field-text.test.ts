import { describe, expect, it } from "vitest";
import { fieldText } from "./plan-field-text";

describe("fieldText", () => {
  it("uses the variant's own text, then the section's, then the field name", () => {
    expect(fieldText("scenario.ping-pong.intervalMs", ["ping-pong"]).label).toBe("Ping interval");
    expect(fieldText("scenario.echo-flood.timeoutMs", ["echo-flood"])).toMatchObject({ label: "Timeout", unit: "ms" });
    expect(fieldText("scenario.some-new.burstSizeBytes", ["some-new"])).toEqual({ label: "Burst size", unit: "B" });
    expect(fieldText("load.shape.step-up.stepDurationSec", ["step-up"])).toEqual({ label: "Step duration", unit: "s" });
  });
});
