import { describe, expect, it } from "vitest";
import { runAgentStatus } from "./status";

const RUN = "6f1c1a34-9a43-4f7e-9d0e-3c2a1b0c9d8e";

describe("an agent's status in a run's agent table", () => {
  it("an ended run shows how the agent's part ended, never what the agent does now (it read busy on a finished run)", () => {
    expect(
      runAgentStatus({ live: false, runId: RUN, agent: { status: "busy", currentRunId: "another" }, lost: false }),
    ).toEqual({ status: "done", tone: "idle" });
    expect(runAgentStatus({ live: false, runId: RUN, agent: { status: "online" }, lost: true })).toEqual({
      status: "lost",
      tone: "bad",
    });
  });

  it("a live run: busy with this run reads running; anything else is the fleet's word", () => {
    expect(
      runAgentStatus({ live: true, runId: RUN, agent: { status: "busy", currentRunId: RUN }, lost: false }),
    ).toEqual({ status: "running", tone: "busy" });
    expect(runAgentStatus({ live: true, runId: RUN, agent: { status: "offline" }, lost: false })).toEqual({
      status: "offline",
      tone: "idle",
    });
    expect(runAgentStatus({ live: true, runId: RUN, lost: false })).toEqual({ status: "unknown", tone: "idle" });
  });
});
