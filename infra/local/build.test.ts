import { promises as fs } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isStale, type BuildTarget } from "./build";

const target: BuildTarget = { workspace: "@throng/example", output: "app/dist/out.js", sources: ["app", "shared/src"] };
let root: string;

async function write(file: string, ageSeconds: number): Promise<void> {
  const full = path.join(root, file);
  await fs.mkdir(path.dirname(full), { recursive: true });
  await fs.writeFile(full, "x");
  const when = new Date(Date.now() - ageSeconds * 1000);
  await fs.utimes(full, when, when);
}

beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), "throng-build-"));
  await write("app/src/main.ts", 100);
  await write("shared/src/schema.ts", 100);
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

describe("isStale (npm start builds only what changed)", () => {
  it("is stale when the output is missing", async () => {
    expect(await isStale(root, target)).toBe(true);
  });

  it("is fresh when the output is newer than every source", async () => {
    await write("app/dist/out.js", 10);
    expect(await isStale(root, target)).toBe(false);
  });

  it("is stale when a source in another listed folder changed after the build", async () => {
    await write("app/dist/out.js", 10);
    await write("shared/src/schema.ts", 1);
    expect(await isStale(root, target)).toBe(true);
  });

  it("ignores files that builds and type checks write themselves, and tests", async () => {
    await write("app/dist/out.js", 10);
    for (const file of [
      "app/.next/cache/x",
      "app/node_modules/p/index.js",
      "app/tsconfig.tsbuildinfo",
      "app/next-env.d.ts",
      "app/src/main.test.ts",
    ]) {
      await write(file, 1);
    }
    expect(await isStale(root, target)).toBe(false);
  });
});
