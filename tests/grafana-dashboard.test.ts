import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { prometheusSeriesNames } from "@throng/core/metrics-export/export-series";
import { root } from "./fault/support/processes";

/** infra/grafana/throng-runs.json (issue 17) may only chart series the metrics export sends, by the labels it sets. */
const dashboard = JSON.parse(readFileSync(path.join(root, "infra/grafana/throng-runs.json"), "utf8")) as {
  uid: string;
  panels: { id: number; title: string; targets: { expr: string; refId: string }[] }[];
  templating: { list: { name: string; query: string | { query: string } }[] };
};
const queries = [
  ...dashboard.panels.flatMap((panel) =>
    panel.targets.map((target) => ({ where: `panel "${panel.title}" ${target.refId}`, expr: target.expr })),
  ),
  ...dashboard.templating.list
    .filter((v) => typeof v.query === "object")
    .map((v) => ({ where: `variable ${v.name}`, expr: (v.query as { query: string }).query })),
];
const RUN_LABELS = ["run_id", "plan", "scenario", "org", "quantile"];

describe("the Grafana dashboard", () => {
  it("has the panels it promises, each with at least one query, and unique ids", () => {
    expect(dashboard.uid).toBe("throng-runs");
    expect(new Set(dashboard.panels.map((p) => p.id)).size).toBe(dashboard.panels.length);
    for (const title of [/p99/, /Throughput/, /Errors/, /Connections/, /histogram/, /heatmap/])
      expect(
        dashboard.panels.some((p) => title.test(p.title)),
        String(title),
      ).toBe(true);
    for (const panel of dashboard.panels) expect(panel.targets.length, panel.title).toBeGreaterThan(0);
    expect(dashboard.templating.list.map((v) => v.name)).toEqual(expect.arrayContaining(["run_id", "plan"]));
  });

  it("every query names only series we export (a histogram as its _bucket, _count and _sum) and labels we set", () => {
    const exported = prometheusSeriesNames();
    expect(exported).toEqual(
      expect.arrayContaining([
        "throng_rtt_seconds",
        "throng_rtt_histogram_seconds_bucket",
        "throng_rtt_histogram_seconds_count",
        "throng_rtt_histogram_seconds_sum",
      ]),
    );
    expect(exported).not.toContain("throng_rtt_histogram_seconds");
    for (const { where, expr } of queries) {
      const names = expr.match(/\bthrong_[a-z_]+/g) ?? [];
      expect(names.length, where).toBeGreaterThan(0);
      for (const name of names) expect(exported, `${where}: ${name}`).toContain(name);
      for (const [, label] of expr.matchAll(/([a-z_]+)\s*=~?\s*"/g))
        expect(RUN_LABELS, `${where}: label ${label}`).toContain(label);
    }
  });
});
