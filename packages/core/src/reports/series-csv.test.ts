import { describe, expect, it } from "vitest";
import type { ErrorSampleView } from "@throng/protocol/error-samples";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import { errorSamplesCsv, seriesCsv } from "./series-csv";

const base: SeriesPoint = {
  t: 1_700_000_000,
  agents: 1,
  clients: 4,
  connections: 4,
  messagesSentPerSec: 40,
  messagesReceivedPerSec: 40,
  bytesSentPerSec: 2560,
  bytesReceivedPerSec: 2560,
  errors: 0,
  rttP50Ms: 41,
  rttP99Ms: 90,
  rttMaxMs: 120,
};
const kcp = {
  kcpRetransmits: 7,
  kcpFastRetransmits: 5,
  kcpRtoExpiries: 2,
  kcpWireBytesSent: 3_000,
  kcpWireBytesReceived: 2_900,
  kcpPayloadBytesSent: 2_560,
  kcpPayloadBytesReceived: 2_560,
};

const table = (csv: string) => {
  const [header, ...rows] = csv
    .trim()
    .split("\n")
    .map((line) => line.split(","));
  return rows.map((row) => Object.fromEntries(header!.map((name, i) => [name, row[i]])));
};

describe("the series CSV export", () => {
  it("gives a KCP run's retransmissions, bytes on the wire and payload, and overhead in percent, each second", () => {
    const [row] = table(seriesCsv([{ ...base, ...kcp }]));
    expect(row).toMatchObject({
      kcp_retransmits: "7",
      kcp_fast_retransmits: "5",
      kcp_rto_expiries: "2",
      kcp_wire_bytes_sent: "3000",
      kcp_wire_bytes_received: "2900",
      kcp_payload_bytes_sent: "2560",
      kcp_payload_bytes_received: "2560",
      kcp_overhead_percent: "15.2",
    });
  });

  it("has no KCP columns for a run that did not use KCP", () => {
    expect(seriesCsv([base]).split("\n")[0]).not.toContain("kcp_");
  });
});

describe("the error samples' CSV export", () => {
  it("has one row per sample: time, since start, kind, message quoted when it holds a comma, client, agent, bytes", () => {
    const agentId = "5d108a73-13b5-488b-8743-4a7fda18fca8";
    const samples: ErrorSampleView[] = [
      {
        kind: "session-rejected",
        message: 'step 1: "no", said the server',
        at: Date.UTC(2026, 10, 27, 9, 0, 1, 250),
        client: 3,
        agentId,
        sinceStartMs: 1250,
        bytes: { length: 300, hex: "2d455252" },
      },
      {
        kind: "refused",
        message: "connect ECONNREFUSED 127.0.0.1:9",
        at: Date.UTC(2026, 10, 27, 9, 0, 2),
        agentId,
        sinceStartMs: 2000,
      },
    ];
    expect(errorSamplesCsv(samples).split("\n")).toEqual([
      "time,since_start_ms,kind,message,client,agent_id,bytes_length,bytes_hex",
      `2026-11-27T09:00:01.250Z,1250,session-rejected,"step 1: ""no"", said the server",3,${agentId},300,2d455252`,
      `2026-11-27T09:00:02.000Z,2000,refused,connect ECONNREFUSED 127.0.0.1:9,,${agentId},,`,
      "",
    ]);
  });
});
