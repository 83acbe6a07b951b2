import { describe, expect, it } from "vitest";
import { formatLabels, labelErrorsFromApi, labelRow, labelsFromRows, rowsFromLabels } from "./labels";

describe("labelsFromRows", () => {
  it("builds the label set, trimming and skipping blank rows", () => {
    const rows = [labelRow(" region ", " eu "), labelRow("", ""), labelRow("gpu", "")];
    expect(labelsFromRows(rows)).toEqual({ ok: true, labels: { region: "eu", gpu: "" } });
  });

  it("puts a duplicated name and a nameless value on their own rows", () => {
    const first = labelRow("region", "eu");
    const twice = labelRow("region", "us");
    const nameless = labelRow("", "x");
    const result = labelsFromRows([first, twice, nameless]);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors[first.id]).toBeUndefined();
      expect(result.errors[twice.id]).toMatch(/already set/);
      expect(result.errors[nameless.id]).toMatch(/name/);
    }
  });

  it("checks names with the API's schema", () => {
    const bad = labelRow("has space", "x");
    const result = labelsFromRows([bad]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.errors[bad.id]).toMatch(/letters, digits/);
  });

  it("round-trips an agent's labels", () => {
    const rows = rowsFromLabels({ region: "eu", tier: "large" });
    expect(labelsFromRows(rows)).toEqual({ ok: true, labels: { region: "eu", tier: "large" } });
  });
});

describe("labelErrorsFromApi", () => {
  it("maps labels.<name> paths onto rows and keeps the rest for the form", () => {
    const row = labelRow("region", "x");
    const errors = labelErrorsFromApi(
      [row],
      [
        { path: "labels.region", message: "too long" },
        { path: "labels", message: "too many" },
      ],
      "failed",
    );
    expect(errors[row.id]).toBe("too long");
    expect(errors.form).toBe("labels: too many");
  });
});

describe("formatLabels", () => {
  it("sorts by name and shows a bare name for an empty value", () => {
    expect(formatLabels({ tier: "large", gpu: "", region: "eu" })).toEqual(["gpu", "region=eu", "tier=large"]);
  });
});
