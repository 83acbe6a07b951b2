import { describe, expect, it } from "vitest";
import { hexToText, textToHex } from "./hex-text";

describe("hex bytes as text", () => {
  it("turns what a user types into the hex a reply rule compares", () => {
    const typed = [
      ["+PONG", "2b504f4e47"],
      ["\\r\\n", "0d0a"],
      ["a\\x00\\\\", "61005c"],
      ["é", "c3a9"],
    ] as const;
    for (const [text, hex] of typed) expect(textToHex(text), text).toBe(hex);
  });

  it("shows hex as text with escapes, and reads back to the same bytes", () => {
    for (const hex of ["2b504f4e47", "0d0a", "00ff5c41", ""]) expect(textToHex(hexToText(hex)!)).toBe(hex);
    expect(hexToText("2b4f4b0d0a")).toBe("+OK\\r\\n");
    expect(hexToText("2b4")).toBeNull();
  });

  it("keeps a lone backslash as a backslash", () => {
    expect(textToHex("\\")).toBe("5c");
    expect(textToHex("\\q")).toBe("5c71");
  });
});
