import { describe, expect, it } from "vitest";
import { openFiles } from "./agent-health";

describe("an agent's open files in the run's agent table", () => {
  it("sets the files summed over its engine processes against their limits together, and says so", () => {
    expect(openFiles({ openFds: 200_203, fdLimit: 20_000, engines: 11 })).toEqual({
      text: "200,203 / 220,000",
      title: "open files over 11 engine processes, each limited to 20,000",
    });
    expect(openFiles({ openFds: 120, fdLimit: 1_024 })).toEqual({
      text: "120 / 1,024",
      title: "open files, limited to 1,024",
    });
    expect(openFiles({ openFds: 120 })).toEqual({ text: "120" });
    expect(openFiles(undefined)).toEqual({ text: "—" });
  });
});
