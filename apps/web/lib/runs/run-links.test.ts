import { describe, expect, it } from "vitest";
import { linkRunIds } from "./run-links";

const A = "bab81732-5577-4026-8ecb-c3c5122295e9";
const B = "0f000000-0000-4000-8000-000000000001";

describe("linkRunIds", () => {
  it("makes the run a queued run waits for a short link, keeping the sentence around it", () => {
    expect(linkRunIds(`The one agent that matches is busy with run ${A}; the run is queued`)).toEqual([
      { text: "The one agent that matches is busy with run " },
      { runId: A, label: "bab81732…" },
      { text: "; the run is queued" },
    ]);
  });

  it("links each run of a list", () => {
    expect(linkRunIds(`busy with runs ${A}, ${B}`)).toEqual([
      { text: "busy with runs " },
      { runId: A, label: "bab81732…" },
      { text: ", " },
      { runId: B, label: "0f000000…" },
    ]);
  });

  it("leaves text without run ids, and ids not called runs, as they are", () => {
    expect(linkRunIds("aborted by someone@example.com")).toEqual([{ text: "aborted by someone@example.com" }]);
    expect(linkRunIds(`agent ${A} lost`)).toEqual([{ text: `agent ${A} lost` }]);
  });
});
