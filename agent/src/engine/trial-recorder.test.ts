import { describe, expect, it } from "vitest";
import { encodeMessage } from "@throng/protocol/agent";
import {
  BytesPreview,
  SessionTrialResult,
  TRIAL_CAPTURE_CHARS,
  TRIAL_PREVIEW_BYTES,
  TRIAL_RECEIVED_PER_STEP,
} from "@throng/protocol/session-trial";
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

describe("a trial's result frame", () => {
  it("stays under the gateway's 1 MiB frame limit at its largest: 32 steps, each with a sent message, every reply shown and 16 long captures", () => {
    const worst = bytesPreview(Buffer.alloc(10_000, 0)); // every byte escaped: the longest text
    const step = {
      index: 0,
      kind: "expect" as const,
      ok: false,
      ms: 10_000,
      sent: worst,
      received: Array.from({ length: TRIAL_RECEIVED_PER_STEP }, () => ({ ...worst, matched: false })),
      receivedMore: 1_000,
      captured: Object.fromEntries(
        Array.from({ length: 16 }, (_, i) => [`name${i}`.padEnd(32, "x"), "v".repeat(TRIAL_CAPTURE_CHARS + 1)]),
      ),
      error: "session-timeout",
    };
    const result = SessionTrialResult.parse({
      trialId: "4f2b8c1d-6e3a-4d5b-9c7f-1a2b3c4d5e6f",
      connect: { ok: true, ms: 1 },
      steps: Array.from({ length: 32 }, (_, index) => ({ ...step, index })),
    });
    const frame = encodeMessage({ type: "session-trial-result", payload: result });
    expect(frame.length).toBeLessThan(1 << 20);
  });
});
