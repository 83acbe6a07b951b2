import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { cachedBundle, sha256Of } from "./script-cache";

const SOURCE = "export default async function client(ctx) { ctx.count('ran', 1); }\n";
const HASH = sha256Of(SOURCE);
let dirs: string[] = [];

async function tempDirs(): Promise<string[]> {
  const root = await mkdtemp(join(tmpdir(), "throng-script-cache-"));
  dirs = [join(root, "primary"), join(root, "fallback")];
  return dirs;
}

afterEach(async () => {
  if (dirs[0]) await rm(join(dirs[0], ".."), { recursive: true, force: true });
  dirs = [];
});

describe("the agent's cache of script bundles (PROTOCOL.md §12)", () => {
  it("fetches once, writes the verified bundle named by its hash, and reads it back without fetching", async () => {
    const where = await tempDirs();
    const fetched: string[] = [];
    const fetch = async (sha256: string) => {
      fetched.push(sha256);
      return SOURCE;
    };
    const path = await cachedBundle(where, HASH, fetch);
    expect(path).toBe(join(where[0]!, `${HASH}.mjs`));
    expect(await readFile(path, "utf8")).toBe(SOURCE);
    expect(await cachedBundle(where, HASH, fetch)).toBe(path);
    expect(fetched).toEqual([HASH]);
  });

  it("refuses a bundle whose bytes do not hash to the plan's sha256, and writes nothing", async () => {
    const where = await tempDirs();
    await expect(cachedBundle(where, HASH, async () => `${SOURCE}// tampered`)).rejects.toThrow(
      `refused script bundle ${HASH}: what the server sent hashes to`,
    );
    await expect(readFile(join(where[0]!, `${HASH}.mjs`))).rejects.toThrow(/ENOENT/);
  });

  it("re-verifies a cached file: an edited copy is dropped and fetched again", async () => {
    const where = await tempDirs();
    const path = await cachedBundle(where, HASH, async () => SOURCE);
    await writeFile(path, "export default async function client() { /* edited on disk */ }\n");
    let fetches = 0;
    expect(
      await cachedBundle(where, HASH, async () => {
        fetches++;
        return SOURCE;
      }),
    ).toBe(path);
    expect(fetches).toBe(1);
    expect(await readFile(path, "utf8")).toBe(SOURCE);
  });

  it("falls back to the next directory when the first cannot be written", async () => {
    const where = await tempDirs();
    await writeFile(join(where[0]!, "..", "primary"), "a file where the directory should be");
    expect(await cachedBundle(where, HASH, async () => SOURCE)).toBe(join(where[1]!, `${HASH}.mjs`));
  });
});
