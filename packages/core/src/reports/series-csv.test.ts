import { describe, expect, it } from "vitest";
import type { ErrorSampleView } from "@throng/protocol/error-samples";
import { errorSamplesCsv } from "./series-csv";

describe("the error samples' CSV export", () => {
  it("has one row per sample: time, since start, kind, message quoted when it holds a comma, client, agent, bytes", () => {
    const agentId = "5d108a73-13b5-488b-8743-4a7fda18fca8";
    const samples: ErrorSampleView[] = [
      { kind: "session-rejected", message: 'step 1: "no", said the server', at: Date.UTC(2026, 10, 27, 9, 0, 1, 250), client: 3, agentId, sinceStartMs: 1250, bytes: { length: 300, hex: "2d455252" } },
      { kind: "refused", message: "connect ECONNREFUSED 127.0.0.1:9", at: Date.UTC(2026, 10, 27, 9, 0, 2), agentId, sinceStartMs: 2000 },
    ];
    expect(errorSamplesCsv(samples).split("\n")).toEqual([
      "time,since_start_ms,kind,message,client,agent_id,bytes_length,bytes_hex",
      `2026-11-27T09:00:01.250Z,1250,session-rejected,"step 1: ""no"", said the server",3,${agentId},300,2d455252`,
      `2026-11-27T09:00:02.000Z,2000,refused,connect ECONNREFUSED 127.0.0.1:9,,${agentId},,`,
      "",
    ]);
  });
});
