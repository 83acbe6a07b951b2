import { createHash, randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Scenario } from "@throng/protocol/plan";

/** Where verified bundles are kept: beside the agent's credential file, else under the system's temp directory. */
export function scriptCacheDirs(configPath: string): string[] {
  return [join(dirname(configPath), "scripts"), join(tmpdir(), "throng-agent-scripts")];
}

export const sha256Of = (source: string | Buffer) => createHash("sha256").update(source).digest("hex");

/** The cached file's path when it is there and still hashes to `sha256` (a damaged or edited file is dropped). */
async function verifiedCopy(path: string, sha256: string): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch {
    return undefined;
  }
  if (sha256Of(bytes) === sha256) return path;
  await rm(path, { force: true });
  return undefined;
}

/**
 * The path of a verified copy of bundle `sha256`: from the cache, or fetched, checked against the hash and written
 * there (named by hash, `.mjs` so Node imports it as a module). A bundle whose bytes do not hash to `sha256` is
 * refused, whoever sent it.
 */
export async function cachedBundle(
  dirs: readonly string[],
  sha256: string,
  fetch: (sha256: string) => Promise<string>,
): Promise<string> {
  const name = `${sha256}.mjs`;
  for (const dir of dirs) {
    const cached = await verifiedCopy(join(dir, name), sha256);
    if (cached) return cached;
  }
  const source = await fetch(sha256);
  const actual = sha256Of(Buffer.from(source, "utf8"));
  if (actual !== sha256) throw new Error(`refused script bundle ${sha256}: what the server sent hashes to ${actual}`);
  const failures: string[] = [];
  for (const dir of dirs) {
    const path = join(dir, name);
    // Written aside and renamed: a concurrent reader never sees half a file.
    const partial = join(dir, `.${name}.${randomUUID()}.tmp`);
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(partial, source, { mode: 0o600 });
      await rename(partial, path);
      return path;
    } catch (error) {
      await rm(partial, { force: true }).catch(() => undefined);
      failures.push(`${dir}: ${(error as Error).message}`);
    }
  }
  throw new Error(`cannot store script bundle ${sha256} (${failures.join("; ")})`);
}

/** For a plan's `script: { sha256 }`, the verified file its engines import; undefined for any other plan. */
export async function scriptBundlePath(
  scenario: Scenario,
  dirs: readonly string[],
  fetch: (sha256: string) => Promise<string>,
): Promise<string | undefined> {
  if (scenario.kind !== "script" || !("sha256" in scenario.script)) return undefined;
  return cachedBundle(dirs, scenario.script.sha256.toLowerCase(), fetch);
}
