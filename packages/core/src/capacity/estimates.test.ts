import { describe, expect, it } from "vitest";
import { withChanges } from "./estimates";

const row = (build: string, clients: number | null) => ({
  id: crypto.randomUUID(),
  targetName: "lobby",
  build,
  runId: crypto.randomUUID(),
  clients,
  valid: true,
  sentence: "",
  createdAt: new Date(),
});

describe("saved estimates", () => {
  it("say how each changed against the build before", () => {
    const views = withChanges([row("1.3", 13_200), row("1.4", 11_616), row("1.5", null), row("1.6", 12_000)]);
    expect(views.map((v) => v.change)).toEqual([null, "−12% since build 1.3", null, null]);
    expect(views[1]?.changePercent).toBe(-12);
  });
});
