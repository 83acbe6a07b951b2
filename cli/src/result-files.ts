import { writeFile } from "node:fs/promises";
import type { RunView } from "@throng/protocol/run";
import type { BaselineResult } from "./baseline-gate";
import { formatSloValue, metricLine } from "./run-report";

/**
 * `--json`: what a later CI step reads; the run as the API returned it, with its parts at the top, and with
 * --baseline the comparison (`baseline.regressions`: the metrics worse than their allowance, with their change).
 */
export function jsonSummary(run: RunView, baseline?: BaselineResult): string {
  return `${JSON.stringify({ run, verdict: run.verdict ?? null, summary: run.summary, capacity: run.capacity ?? null, ...(baseline ? { baseline } : {}) }, null, 2)}\n`;
}

/** Escapes text for XML attributes and content, dropping characters XML 1.0 cannot carry. */
export function escapeXml(text: string): string {
  return (
    text
      // eslint-disable-next-line no-control-regex
      // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters XML 1.0 allows, tab, LF and CR among them; the rest is dropped.
      .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

interface TestCase {
  name: string;
  failure?: { type: string; message: string; detail: string };
  error?: { type: string; message: string };
}

function runSeconds(run: RunView): number {
  if (run.summary) return run.summary.durationSec;
  if (run.startedAt && run.endedAt) return Math.max(0, (Date.parse(run.endedAt) - Date.parse(run.startedAt)) / 1000);
  return 0;
}

/** One testcase per metric held to an allowance: a failure names the metric, both figures and the change. */
function baselineCases(baseline: BaselineResult): TestCase[] {
  return baseline.metrics
    .filter((metric) => metric.allowance !== null)
    .map((metric): TestCase => {
      const name = `${metric.metric} against baseline ${baseline.baselineRunId}`;
      const failed = (type: string, detail: string): TestCase => ({
        name,
        failure: { type, message: metricLine(metric), detail },
      });
      if (metric.status === "regressed")
        return failed(
          "regression",
          `${metric.metric} measured ${metric.value} against ${metric.baseline} in baseline run ${baseline.baselineRunId}: change ${metric.change ?? "up from 0"} ${metric.unit}, allowed ${metric.allowance} ${metric.unit}`,
        );
      if (metric.status === "no-data")
        return failed("no-data", "a metric held to the baseline must be measured by both runs");
      return { name };
    });
}

/** One testcase per SLO; a run that did not finish is an error testcase, and a finished run without SLOs one passing case. */
function testCases(run: RunView): TestCase[] {
  const cases: TestCase[] = [];
  if (run.status !== "finished") {
    cases.push({
      name: "run",
      error: { type: run.status, message: `the run ${run.status}${run.error ? `: ${run.error}` : ""}` },
    });
  }
  if (run.status === "finished" && !run.verdict && run.spec.slos?.length) {
    cases.push({
      name: "SLO verdict",
      error: { type: "no-verdict", message: "the run finished but the server recorded no SLO verdict" },
    });
  }
  const verdict = run.verdict;
  // The load itself is a test: a run that did not run as planned fails it even when its SLOs held.
  if (run.status === "finished" && verdict?.outcome) {
    const loadReasons = verdict.outcome === "incomplete" ? verdict.reasons.filter((r) => !r.startsWith("SLO ")) : [];
    cases.push(
      loadReasons.length
        ? {
            name: "load ran as planned",
            failure: { type: "incomplete", message: loadReasons.join("; "), detail: loadReasons.join("\n") },
          }
        : { name: "load ran as planned" },
    );
  }
  for (const slo of verdict?.slos ?? []) {
    const name = `${slo.metric} below ${slo.below}`;
    if (slo.passed) {
      cases.push({ name });
      continue;
    }
    if (slo.status === "no-data") {
      cases.push({
        name,
        failure: {
          type: "no-data",
          message: `${slo.metric} has no data: ${slo.note ?? "nothing measured it"}`,
          detail: `an SLO over no data is not met`,
        },
      });
      continue;
    }
    const message = `${slo.metric} was ${formatSloValue(slo.metric, slo.value)}, threshold below ${formatSloValue(slo.metric, slo.below)}`;
    const first =
      slo.firstBreachAt !== null ? `; first breach at ${new Date(slo.firstBreachAt * 1000).toISOString()}` : "";
    const detail = `measured ${slo.value ?? "nothing"} over the run (threshold: below ${slo.below}); ${slo.breachedSeconds} of ${slo.measuredSeconds} s breached${first}`;
    cases.push({ name, failure: { type: "slo-breached", message, detail } });
  }
  if (cases.length === 0) cases.push({ name: "run finished" });
  return cases;
}

/** `--junit`: one testsuite for the run, so CI systems show each SLO (and each metric held to the baseline) as a test. */
export function junitXml(run: RunView, baseline?: BaselineResult): string {
  const cases = [...testCases(run), ...(baseline ? baselineCases(baseline) : [])];
  const failures = cases.filter((c) => c.failure).length;
  const errors = cases.filter((c) => c.error).length;
  const time = runSeconds(run).toFixed(3);
  const suite = escapeXml(`throng: ${run.planName}`);
  const classname = escapeXml(`throng.${run.planName}`);
  const lines = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="throng" tests="${cases.length}" failures="${failures}" errors="${errors}" time="${time}">`,
    `  <testsuite name="${suite}" tests="${cases.length}" failures="${failures}" errors="${errors}" skipped="0" time="${time}" timestamp="${escapeXml(run.startedAt ?? run.createdAt)}">`,
    `    <properties>`,
    `      <property name="runId" value="${escapeXml(run.id)}"/>`,
    `      <property name="status" value="${escapeXml(run.status)}"/>`,
    ...(run.capacity ? [`      <property name="capacity" value="${escapeXml(run.capacity.sentence)}"/>`] : []),
    ...(baseline ? [`      <property name="baselineRunId" value="${escapeXml(baseline.baselineRunId)}"/>`] : []),
    `    </properties>`,
  ];
  for (const c of cases) {
    const open = `    <testcase classname="${classname}" name="${escapeXml(c.name)}" time="${time}"`;
    if (c.failure) {
      lines.push(
        `${open}>`,
        `      <failure type="${c.failure.type}" message="${escapeXml(c.failure.message)}">${escapeXml(c.failure.detail)}</failure>`,
        `    </testcase>`,
      );
    } else if (c.error) {
      lines.push(
        `${open}>`,
        `      <error type="${escapeXml(c.error.type)}" message="${escapeXml(c.error.message)}"/>`,
        `    </testcase>`,
      );
    } else {
      lines.push(`${open}/>`);
    }
  }
  lines.push(`  </testsuite>`, `</testsuites>`, "");
  return lines.join("\n");
}

/** Writes the requested result files; a file that cannot be written is an error, not a silent skip. */
export async function writeResultFiles(
  run: RunView,
  files: { json?: string; junit?: string },
  baseline?: BaselineResult,
): Promise<void> {
  if (files.json) await writeFile(files.json, jsonSummary(run, baseline));
  if (files.junit) await writeFile(files.junit, junitXml(run, baseline));
}
