import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll } from "vitest";
import { startRedisServer } from "./redis-server";

/**
 * Registers the hooks that start one redis-server for the calling test file (with `args`) and stop it after its last
 * test; its `port` is there once the file's tests run.
 */
export function useRedisServer(args: string[] = []): { readonly port: number } {
  let redis: ChildProcess | undefined;
  let port = 0;
  beforeAll(async () => {
    ({ port, process: redis } = await startRedisServer(args));
  });
  afterAll(() => {
    redis?.kill();
  });
  return {
    get port() {
      return port;
    },
  };
}
