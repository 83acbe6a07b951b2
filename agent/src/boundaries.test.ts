import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const srcDir = fileURLToPath(new URL(".", import.meta.url));
// Templates and codecs (@msgpack/msgpack, protobufjs: maintained libraries, not hand-written encoders) are in
// @throng/wire, which the plan reader shares with the API and the CLI.
const ALLOWED_PACKAGES = [
  /^@throng\/protocol\/[a-z-]+$/,
  /^@throng\/wire\/[a-z-]+$/,
  /^ws$/,
  /^commander$/,
  /^hdr-histogram-js$/,
  /^yaml$/,
  /^@msgpack\/msgpack$/,
  /^protobufjs$/,
  /^node:/,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    // Tests and their support files (`*.test-support.ts`, imported only by tests) may use vitest; the agent may not.
    const testCode = entry.name.endsWith(".test.ts") || entry.name.endsWith(".test-support.ts");
    return entry.name.endsWith(".ts") && !testCode ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)[^"']*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g),
  ].map((match) => (match[1] ?? match[2])!);
}

describe("agent import boundaries (docs/contributing.md)", () => {
  const files = sourceFiles(srcDir).map((path) => ({ path: relative(srcDir, path), imports: importsOf(path) }));
  /** "file → import" for each import that `forbidden` refuses, in the files under `folder` (all when left out). */
  const offending = (forbidden: (spec: string) => boolean, folder = "") =>
    files
      .filter(({ path }) => path.startsWith(folder))
      .flatMap(({ path, imports }) => imports.filter(forbidden).map((spec) => `${path} → ${spec}`));

  it("imports only @throng/protocol and @throng/wire subpaths and its own dependencies, never core, db or an app", () => {
    const outside = (spec: string) => !spec.startsWith(".") && !ALLOWED_PACKAGES.some((allowed) => allowed.test(spec));
    expect(offending(outside)).toEqual([]);
  });

  it("keeps transports free of connection, engine, scenarios and metrics", () => {
    const upstream = (spec: string) => /\.\.\/(connection|engine|scenarios|metrics)/.test(spec);
    expect(offending(upstream, "transports/")).toEqual([]);
  });

  it("lets metrics flow one way: metrics import neither scenarios, engine nor connection", () => {
    const upstream = (spec: string) => /\.\.\/(connection|engine|scenarios)/.test(spec);
    expect(offending(upstream, "metrics/")).toEqual([]);
  });

  it("uses extensionless relative imports", () => {
    const withExtension = (spec: string) => spec.startsWith(".") && /\.[cm]?[jt]s$/.test(spec);
    expect(offending(withExtension)).toEqual([]);
  });
});
