import { describe, expect, it } from "vitest";
import { TRIAL_PREVIEW_BYTES, BytesPreview } from "@throng/protocol/session-trial";
import { bytesPreview } from "./trial-recorder";

describe("a trial's bytes preview", () => {
  it("shows the first TRIAL_PREVIEW_BYTES as hex and text with the full length, so a big message never grows the frame", () => {
    const preview = bytesPreview(Buffer.alloc(100_000, 0x41));
    expect(preview.bytes).toBe(100_000);
    expect(preview.hex).toBe("41".repeat(TRIAL_PREVIEW_BYTES));
    expect(preview.text).toBe("A".repeat(TRIAL_PREVIEW_BYTES));
    expect(BytesPreview.safeParse(preview).success).toBe(true);
  });

  it("escapes control characters in the text, so \\r\\n and NULs show, and stays within the schema's limit when all are", () => {
    expect(bytesPreview("+PONG\r\n\t\\").text).toBe("+PONG\\r\\n\\t\\\\");
    const zeros = bytesPreview(new Uint8Array(TRIAL_PREVIEW_BYTES + 10));
    expect(zeros.text).toBe("\\x00".repeat(TRIAL_PREVIEW_BYTES));
    expect(BytesPreview.safeParse(zeros).success).toBe(true);
  });
});
