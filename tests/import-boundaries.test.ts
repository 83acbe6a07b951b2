import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The import direction from docs/contributing.md, checked on every test run so a stray import fails CI, not a review.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");

interface Rule {
  folder: string;
  /** @throng/* packages this folder may import at run time. */
  allowed: string[];
  /** Packages it may import only with `import type`. */
  typeOnly?: string[];
  /** No Node built-ins (code that must also run in the browser). */
  browserSafe?: boolean;
}

const rules: Rule[] = [
  { folder: "packages/protocol/src", allowed: [], browserSafe: true },
  { folder: "packages/wire/src", allowed: ["protocol"] },
  { folder: "packages/core/src", allowed: ["protocol", "wire"], typeOnly: ["db"] },
  { folder: "packages/runtime/src", allowed: ["protocol"], typeOnly: ["core"] },
  { folder: "db/src", allowed: ["protocol", "db"] },
  { folder: "apps/api/src", allowed: ["protocol", "core", "db", "runtime"] },
  { folder: "workers/src", allowed: ["protocol", "core", "db", "runtime"] },
  { folder: "agent/src", allowed: ["protocol", "wire"] },
  { folder: "cli/src", allowed: ["protocol", "wire"] },
  { folder: "apps/web", allowed: ["protocol"] },
];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (["node_modules", ".next", "dist"].includes(name)) continue;
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) out.push(...sourceFiles(full));
    else if (/\.(ts|tsx)$/.test(name) && !name.endsWith(".d.ts")) out.push(full);
  }
  return out;
}

const importPattern = /^\s*(import|export)\s+(type\s+)?[^;]*?from\s+["']([^"']+)["']/gm;

function violations(rule: Rule): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(path.join(root, rule.folder))) {
    const text = readFileSync(file, "utf8");
    const isTest = /\.test\.tsx?$/.test(file) || file.includes(`${path.sep}testing${path.sep}`);
    for (const match of text.matchAll(importPattern)) {
      const typeOnly = Boolean(match[2]);
      const spec = match[3]!;
      const where = `${path.relative(root, file)} imports ${spec}`;
      if (rule.browserSafe && spec.startsWith("node:")) found.push(`${where} (must run in the browser)`);
      const pkg = /^@throng\/([^/]+)/.exec(spec)?.[1];
      if (!pkg) continue;
      if (rule.allowed.includes(pkg)) continue;
      if (rule.typeOnly?.includes(pkg) && (typeOnly || isTest)) continue;
      found.push(where);
    }
  }
  return found;
}

describe("import boundaries (docs/contributing.md)", () => {
  for (const rule of rules) {
    it(`${rule.folder} imports only ${[...rule.allowed, ...(rule.typeOnly ?? []).map((p) => `type ${p}`)].join(", ") || "zod"}`, () => {
      expect(violations(rule)).toEqual([]);
    });
  }

  it("catches a forbidden import (the checker itself works)", () => {
    const text = 'import { createDb } from "@throng/db/client";';
    expect([...text.matchAll(importPattern)].map((m) => m[3])).toEqual(["@throng/db/client"]);
  });
});
