import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  failureLines,
  playwrightCounts,
  playwrightFailures,
  summaryLine,
  vitestCounts,
  vitestFailures,
} from "./test-report";

const dir = await fs.mkdtemp(path.join(os.tmpdir(), "throng-report-"));
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

async function report(name: string, content: unknown): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, JSON.stringify(content));
  return file;
}

/** A vitest JSON report: the tests that passed, those pending and todo (none unless given), and its files. */
const vitestReport = (
  numPassedTests: number,
  testResults: object[],
  notRun = { numPendingTests: 0, numTodoTests: 0 },
) => ({ numPassedTests, ...notRun, testResults });

const vitestFile = (status: string, tests: string[]) => ({
  status,
  assertionResults: tests.map((s) => ({ status: s })),
});

describe("vitestCounts", () => {
  it("counts passed, failed and skipped tests", async () => {
    const file = await report(
      "v1.json",
      vitestReport(2, [vitestFile("passed", ["passed", "passed"]), vitestFile("failed", ["failed", "skipped"])], {
        numPendingTests: 1,
        numTodoTests: 1,
      }),
    );
    expect(await vitestCounts(file, 1)).toEqual({ passed: 2, failed: 1, skipped: 2 });
  });

  it("counts a file that failed before any test (import error) as one failure", async () => {
    const file = await report("v2.json", vitestReport(3, [vitestFile("failed", [])]));
    expect(await vitestCounts(file, 1)).toEqual({ passed: 3, failed: 1, skipped: 0 });
  });

  it("counts a non-zero exit with every test passed (an unhandled error) as a failure", async () => {
    const file = await report("v3.json", vitestReport(3, [vitestFile("passed", ["passed"])]));
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

describe("the failed tests named above the closing line", () => {
  it("names each failed vitest test by file and title with its error's first line, and a file that failed outside any test", async () => {
    const file = await report(
      "v4.json",
      vitestReport(1, [
        {
          name: path.join(dir, "agent/src/a.int.test.ts"),
          status: "failed",
          assertionResults: [
            { status: "passed", fullName: "a passes" },
            {
              status: "failed",
              fullName: "a counts every ping",
              failureMessages: ["\u001b[31mAssertionError\u001b[39m: expected 176 to be 177\n    at x"],
            },
          ],
        },
        {
          name: path.join(dir, "tests/b.int.test.ts"),
          status: "failed",
          message: "Cannot find module 'x'",
          assertionResults: [],
        },
      ]),
    );
    expect(await vitestFailures(file, dir)).toEqual([
      "agent/src/a.int.test.ts › a counts every ping: AssertionError: expected 176 to be 177",
      "tests/b.int.test.ts (outside any test): Cannot find module 'x'",
    ]);
    expect(await vitestFailures(path.join(dir, "missing.json"), dir)).toHaveLength(1);
  });

  it("names each failed journey from Playwright's nested suites, and errors outside any journey", async () => {
    const file = await report("p2.json", {
      suites: [
        {
          title: "zoom.spec.ts",
          file: "zoom.spec.ts",
          specs: [{ title: "zoom: passes", ok: true, tests: [] }],
          suites: [
            {
              title: "inner",
              specs: [
                {
                  title: "zoom: a drag zooms",
                  ok: false,
                  tests: [{ results: [{ error: { message: "Timed out 5000ms" } }] }],
                },
              ],
            },
          ],
        },
      ],
      errors: [{ message: "spec failed to load" }],
    });
    expect(await playwrightFailures(file)).toEqual([
      "zoom.spec.ts › zoom: a drag zooms: Timed out 5000ms",
      "outside any journey: spec failed to load",
    ]);
  });

  it("prints nothing when nothing failed, and at most 40 names with the rest counted", () => {
    expect(failureLines([])).toEqual([]);
    const lines = failureLines(Array.from({ length: 45 }, (_, i) => `t${i}`));
    expect(lines[0]).toBe("failed tests (45):");
    expect(lines).toHaveLength(1 + 40 + 1);
    expect(lines.at(-1)).toBe("  … 5 more");
  });
});
