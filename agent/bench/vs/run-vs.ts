// `npm run bench:agent -- --vs tsung --vs k6`: the same scenarios on Throng and on each named tool, in the
// same run against the same pinned target, every tool measured by the same neutral meter (see shared.ts).
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { k6Tool } from "./k6";
import { comparisonTable, runComparison, type VsScenario, type VsTarget, type VsTool } from "./shared";
import { throngTool } from "./throng";
import { tsungTool } from "./tsung";

const TOOLS: Record<string, () => VsTool> = { tsung: tsungTool, k6: k6Tool };

/** The tools named by `--vs NAME` (repeatable); an unknown name stops the bench before anything runs. */
export function vsToolNames(argv: string[]): string[] {
  const names = argv.flatMap((arg, i) =>
    arg === "--vs" ? [argv[i + 1] ?? ""] : arg.startsWith("--vs=") ? [arg.slice(5)] : [],
  );
  for (const name of names)
    if (!TOOLS[name]) throw new Error(`--vs ${name}: unknown tool; expected one of ${Object.keys(TOOLS).join(", ")}`);
  return [...new Set(names)];
}

export function vsScenarios(quick: boolean): VsScenario[] {
  const holdSec = quick ? 6 : 10;
  return [
    ...[1_000, 5_000, 10_000, 19_500].map(
      (clients): VsScenario => ({
        kind: "s1",
        clients,
        intervalMs: 1_000,
        rampUpSec: Math.max(1, Math.ceil(clients / 4_000)),
        holdSec,
      }),
    ),
    { kind: "s2", protocol: "websocket", connections: 100, durationSec: quick ? 8 : 20 },
    { kind: "s2", protocol: "tcp", connections: 100, durationSec: quick ? 8 : 20 },
    { kind: "s3", clients: 10_000, holdSec: 5 },
  ];
}

/** Runs the comparison and returns its Markdown table. */
export async function runVs(
  names: string[],
  options: { target: VsTarget; bundle: string; cpu: string; quick: boolean },
): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "throng-bench-vs-"));
  const tools = [throngTool(options.bundle), ...names.map((name) => TOOLS[name]!())];
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(" ");
  const started = `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, load average ${load()}`;
  const results = await runComparison(tools, vsScenarios(options.quick), options.target, { cpu: options.cpu, dir });
  return `${comparisonTable(results)}\n\nComparison started ${started}; load average after ${load()}.`;
}
