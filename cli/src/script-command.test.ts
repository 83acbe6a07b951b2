import { createHash } from "node:crypto";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { SCRIPT_BUNDLE_MAX_BYTES } from "@throng/protocol/script-bundle";
import { ExitCode } from "./cli-exit-codes";
import { runCli } from "./cli-program";
import { capturedIo } from "./testing/cli-harness";

const sha256Of = (text: string) => createHash("sha256").update(text, "utf8").digest("hex");
const entry = fileURLToPath(new URL("./testing/script-entry.ts", import.meta.url));

const io = capturedIo;

describe("throng script bundle / upload", () => {
  it("bundles a TS entry and the CommonJS package it imports into one ES module that runs where no node_modules is", async () => {
    const dir = await mkdtemp(join(tmpdir(), "throng-bundle-"));
    const out = join(dir, "bots.mjs");
    const cli = io();
    expect(await runCli(["node", "throng", "script", "bundle", entry, "--out", out], {}, cli)).toBe(ExitCode.passed);
    const source = await readFile(out, "utf8");
    expect(cli.out()).toBe(`sha256 ${sha256Of(source)}\nsize   ${(Buffer.byteLength(source) / 1024).toFixed(1)} KiB\n`);
    const counted: string[] = [];
    const module = (await import(pathToFileURL(out).href)) as {
      default(ctx: { count(name: string): void }): Promise<string>;
    };
    expect(await module.default({ count: (name) => counted.push(name) })).toBe("function");
    expect(counted).toEqual(["loaded"]);
  });

  it("fails with exit 2 naming the file and line esbuild stopped at", async () => {
    const dir = await mkdtemp(join(tmpdir(), "throng-bundle-"));
    await writeFile(join(dir, "broken.ts"), "export default async function (ctx) {\n  ctx.count(;\n}\n");
    const cli = io();
    expect(await runCli(["node", "throng", "script", "bundle", join(dir, "broken.ts")], {}, cli)).toBe(ExitCode.usage);
    expect(cli.err()).toMatch(/^error: cannot bundle .*broken\.ts:\n {2}.*broken\.ts:2:12: /m);
  });

  it("uploads with --no-bundle as it is and prints the sha256 alone on stdout; a script over the API's limit is refused before sending", async () => {
    const dir = await mkdtemp(join(tmpdir(), "throng-bundle-"));
    const file = join(dir, "single.mjs");
    const source = "export default async function (ctx) { ctx.count('ran', 1); }\n";
    await writeFile(file, source);
    const bodies: unknown[] = [];
    const fetch = (async (_url: string, init: RequestInit) => {
      bodies.push(JSON.parse(String(init.body)));
      return new Response(
        JSON.stringify({
          sha256: sha256Of(source),
          name: "single.mjs",
          sizeBytes: source.length,
          createdAt: new Date(0).toISOString(),
        }),
        { status: 201 },
      );
    }) as typeof globalThis.fetch;
    const cli = io(fetch);
    const env = { server: "http://127.0.0.1:1", token: "thr_api_x" };
    expect(await runCli(["node", "throng", "script", "upload", file, "--no-bundle"], env, cli)).toBe(ExitCode.passed);
    expect(bodies).toEqual([{ name: "single.mjs", source }]);
    expect(cli.out()).toBe(`${sha256Of(source)}\n`);

    await writeFile(file, `//${"x".repeat(SCRIPT_BUNDLE_MAX_BYTES)}`);
    const big = io(fetch);
    expect(await runCli(["node", "throng", "script", "upload", file, "--no-bundle"], env, big)).toBe(ExitCode.usage);
    expect(big.err()).toMatch(/the API stores at most 5242880 \(5 MiB\)/);
    expect(bodies).toHaveLength(1);
  });
});
