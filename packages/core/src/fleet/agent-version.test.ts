import { describe, expect, it } from "vitest";
import { agentVersionProblem } from "./agent-version";

describe("agent version negotiation", () => {
  it("accepts agents of the server's release line", () => {
    expect(agentVersionProblem("0.1.0", "0.1.3")).toBeNull();
    expect(agentVersionProblem("0.1.9", "0.1.0")).toBeNull();
    expect(agentVersionProblem("2.7.1", "2.0.0")).toBeNull();
  });

  it("refuses older and newer lines, saying which version to run", () => {
    expect(agentVersionProblem("0.0.9", "0.1.0")).toBe(
      "throng-agent 0.0.9 is too old; this server needs throng-agent 0.1.x (it runs 0.1.0)",
    );
    expect(agentVersionProblem("0.2.0", "0.1.0")).toMatch(/too new; this server needs throng-agent 0\.1\.x/);
    expect(agentVersionProblem("1.0.0", "2.3.0")).toMatch(/too old; this server needs throng-agent 2\.x/);
    expect(agentVersionProblem("banana", "0.1.0")).toMatch(/not a version number/);
  });
});
