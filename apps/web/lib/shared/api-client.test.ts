import { describe, expect, it } from "vitest";
import { attachmentName, listOf } from "./api-client";

describe("attachmentName", () => {
  it("reads the file name the API gives a download, and nothing from a header without one", () => {
    expect(attachmentName('attachment; filename="lobby-soak-2026-11-26.pdf"')).toBe("lobby-soak-2026-11-26.pdf");
    expect(attachmentName("attachment")).toBeNull();
    expect(attachmentName(null)).toBeNull();
  });
});

describe("listOf", () => {
  const count = {
    safeParse: (input: unknown) =>
      typeof input === "number"
        ? { success: true as const, data: input }
        : { success: false as const, error: { issues: [{ path: ["n"], message: "expected a number" }] } },
  };

  it("resolves a `{ key: [...] }` answer to its items, each checked by the item schema", () => {
    expect(listOf("plans", count).safeParse({ plans: [1, 2] })).toEqual({ success: true, data: [1, 2] });
  });

  it("names the key, the index and the item's own path of what broke the contract", () => {
    expect(listOf("plans", count).safeParse({ plans: [1, "two"] })).toEqual({
      success: false,
      error: { issues: [{ path: ["plans", 1, "n"], message: "expected a number" }] },
    });
    expect(listOf("plans", count).safeParse({ runs: [] })).toEqual({
      success: false,
      error: { issues: [{ path: ["plans"], message: "expected an array" }] },
    });
  });
});
