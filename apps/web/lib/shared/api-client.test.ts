import { describe, expect, it } from "vitest";
import { attachmentName } from "./api-client";

describe("attachmentName", () => {
  it("reads the file name the API gives a download, and nothing from a header without one", () => {
    expect(attachmentName('attachment; filename="lobby-soak-2026-11-26.pdf"')).toBe("lobby-soak-2026-11-26.pdf");
    expect(attachmentName("attachment")).toBeNull();
    expect(attachmentName(null)).toBeNull();
  });
});
