import { promises as fs } from "node:fs";
import path from "node:path";

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
  testResults: { name?: string; status: string; message?: string; assertionResults: AssertionJson[] }[];
}

interface AssertionJson {
  status: string;
  fullName?: string;
  failureMessages?: string[];
}

/** At most this many failed tests are named at the end of a run; the rest are counted. */
const NAMED_FAILURES = 40;

/**
 * One line per failed test ("file › test: first line of the error"), printed just above the closing line so that a
 * CI log cut to its tail still says which tests failed, not only how many.
 */
export function failureLines(failures: string[]): string[] {
  if (failures.length === 0) return [];
  const shown = failures.slice(0, NAMED_FAILURES);
  const more = failures.length - shown.length;
  return [
    `failed tests (${failures.length}):`,
    ...shown.map((f) => `  × ${f}`),
    ...(more > 0 ? [`  … ${more} more`] : []),
  ];
}

/** The failed tests of vitest's JSON report, named by file (relative to root) and full title. */
export async function vitestFailures(file: string, root: string): Promise<string[]> {
  const report = await readJson<VitestJson>(file);
  if (!report)
    return [`vitest wrote no report (${path.relative(root, file)}): the runner crashed; its output above says why`];
  const failures: string[] = [];
  for (const result of report.testResults) {
    const where = result.name ? path.relative(root, result.name) : "(a test file)";
    const failed = result.assertionResults.filter((test) => test.status === "failed");
    for (const test of failed)
      failures.push(`${where} › ${test.fullName ?? "?"}${firstLine(test.failureMessages?.[0])}`);
    if (failed.length === 0 && result.status === "failed")
      failures.push(`${where} (outside any test)${firstLine(result.message)}`);
  }
  return failures;
}

interface PlaywrightSuite {
  title: string;
  file?: string;
  specs?: { title: string; ok: boolean; tests?: { results?: { error?: { message?: string } }[] }[] }[];
  suites?: PlaywrightSuite[];
}

/** The failed journeys of Playwright's JSON report, and its errors outside any test. */
export async function playwrightFailures(file: string): Promise<string[]> {
  const report = await readJson<{ suites?: PlaywrightSuite[]; errors?: { message?: string }[] }>(file);
  if (!report) return ["Playwright wrote no report: its output above says why"];
  const failures: string[] = [];
  const walk = (suite: PlaywrightSuite, file: string | undefined): void => {
    const where = suite.file ?? file;
    for (const spec of suite.specs ?? []) {
      if (spec.ok) continue;
      const error = spec.tests?.flatMap((test) => test.results ?? []).find((result) => result.error)?.error?.message;
      failures.push(`${where ?? "?"} › ${spec.title}${firstLine(error)}`);
    }
    for (const child of suite.suites ?? []) walk(child, where);
  };
  for (const suite of report.suites ?? []) walk(suite, undefined);
  for (const error of report.errors ?? []) failures.push(`outside any journey${firstLine(error.message)}`);
  return failures;
}

const ANSI_COLOUR = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, "g");

/** The first non-blank line of an error, without colour codes, cut to 200 characters. */
function firstLine(message: string | undefined): string {
  const line = message
    ?.replace(ANSI_COLOUR, "")
    .split("\n")
    .find((l) => l.trim() !== "")
    ?.trim();
  return line ? `: ${line.slice(0, 200)}` : "";
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
