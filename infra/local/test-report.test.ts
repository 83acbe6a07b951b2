import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { playwrightCounts, summaryLine, vitestCounts } from "./test-report";

const dir = await fs.mkdtemp(path.join(os.tmpdir(), "throng-report-"));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function report(name: string, content: unknown): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, JSON.stringify(content));
  return file;
}

const vitestFile = (status: string, tests: string[]) => ({
  status,
  assertionResults: tests.map((s) => ({ status: s })),
});

describe("vitestCounts", () => {
  it("counts passed, failed and skipped tests", async () => {
    const file = await report("v1.json", {
      numPassedTests: 2,
      numPendingTests: 1,
      numTodoTests: 1,
      testResults: [vitestFile("passed", ["passed", "passed"]), vitestFile("failed", ["failed", "skipped"])],
    });
    expect(await vitestCounts(file, 1)).toEqual({ passed: 2, failed: 1, skipped: 2 });
  });

  it("counts a file that failed before any test (import error) as one failure", async () => {
    const file = await report("v2.json", {
      numPassedTests: 3,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [vitestFile("failed", [])],
    });
    expect(await vitestCounts(file, 1)).toEqual({ passed: 3, failed: 1, skipped: 0 });
  });

  it("counts a non-zero exit with every test passed (an unhandled error) as a failure", async () => {
    const file = await report("v3.json", {
      numPassedTests: 3,
      numPendingTests: 0,
      numTodoTests: 0,
      testResults: [vitestFile("passed", ["passed"])],
    });
    expect((await vitestCounts(file, 1)).failed).toBe(1);
  });

  it("counts a missing report (the runner crashed) as a failure", async () => {
    expect(await vitestCounts(path.join(dir, "missing.json"), 1)).toEqual({ passed: 0, failed: 1, skipped: 0 });
  });
});

describe("playwrightCounts", () => {
  it("reads stats, and counts errors outside tests as failures", async () => {
    const file = await report("p1.json", {
      stats: { expected: 4, unexpected: 1, flaky: 0, skipped: 2 },
      errors: [{ message: "spec failed to load" }],
    });
    expect(await playwrightCounts(file, 1)).toEqual({ passed: 4, failed: 2, skipped: 2 });
  });
});

describe("summaryLine", () => {
  it("is the plain line CI reads, with skipped only when there are some", () => {
    expect(summaryLine({ passed: 5, failed: 0, skipped: 0 })).toBe("5 passed, 0 failed");
    expect(summaryLine({ passed: 5, failed: 1, skipped: 2 })).toBe("5 passed, 1 failed, 2 skipped");
  });
});
