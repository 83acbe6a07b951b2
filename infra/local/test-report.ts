import { promises as fs } from "node:fs";

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

export const noCounts: Counts = { passed: 0, failed: 0, skipped: 0 };

export function addCounts(a: Counts, b: Counts): Counts {
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped };
}

/** The closing line CI reads: `N passed, N failed` (`, N skipped` when any were). */
export function summaryLine(counts: Counts): string {
  return `${counts.passed} passed, ${counts.failed} failed${counts.skipped ? `, ${counts.skipped} skipped` : ""}`;
}

interface VitestJson {
  numPassedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  testResults: { status: string; assertionResults: { status: string }[] }[];
}

/** Counts from vitest's JSON reporter. A file that failed outside any test (import error, failing hook) counts as one failure. */
export async function vitestCounts(file: string, exitCode: number | null): Promise<Counts> {
  const report = await readJson<VitestJson>(file);
  if (!report) return { ...noCounts, failed: 1 };
  let failed = 0;
  for (const result of report.testResults) {
    const failedTests = result.assertionResults.filter((test) => test.status === "failed").length;
    failed += failedTests || (result.status === "failed" ? 1 : 0);
  }
  // A non-zero exit with nothing failed is an unhandled error after the tests: still a failure.
  if (exitCode !== 0 && failed === 0) failed = 1;
  return { passed: report.numPassedTests, failed, skipped: report.numPendingTests + report.numTodoTests };
}

interface PlaywrightJson {
  stats: { expected: number; unexpected: number; flaky: number; skipped: number };
  errors?: unknown[];
}

/** Counts from Playwright's JSON reporter; errors outside tests (a spec that fails to load) count as failures. */
export async function playwrightCounts(file: string, exitCode: number | null): Promise<Counts> {
  const report = await readJson<PlaywrightJson>(file);
  if (!report) return { ...noCounts, failed: 1 };
  const { expected, unexpected, flaky, skipped } = report.stats;
  let failed = unexpected + (report.errors?.length ?? 0);
  if (exitCode !== 0 && failed === 0) failed = 1;
  // retries are 0, so "flaky" cannot happen; if someone turns retries on, a pass after a retry is a pass.
  return { passed: expected + flaky, failed, skipped };
}

async function readJson<T>(file: string): Promise<T | undefined> {
  try {
    return JSON.parse(await fs.readFile(file, "utf8")) as T;
  } catch {
    return undefined;
  }
}
