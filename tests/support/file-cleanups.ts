import { promises as fs } from "node:fs";
import { afterAll } from "vitest";
import { makeTempDir } from "../../infra/local/temp-dir";

/** Stops or removes one thing a test started. */
export type Cleanup = () => Promise<unknown>;

/**
 * What one test file starts (processes, servers, temporary folders): each start pushes its stop to `cleanups` and,
 * for a failure's message, its last log lines to `tails`. Everything stops after the file's tests, last started first.
 */
export function cleanUpAfterFile(): { cleanups: Cleanup[]; tails: (() => string)[] } {
  const cleanups: Cleanup[] = [];
  afterAll(() => runCleanups(cleanups), 60_000);
  return { cleanups, tails: [] };
}

/** Runs `cleanups` last pushed first; one that fails does not keep the others from running. */
export async function runCleanups(cleanups: Cleanup[]): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
}

/** A fresh temporary folder named `prefix…`, removed with the file's other cleanups. */
export async function tempDirFor(cleanups: Cleanup[], prefix: string): Promise<string> {
  const dir = await makeTempDir(prefix);
  cleanups.push(() => fs.rm(dir, { recursive: true, force: true }));
  return dir;
}
