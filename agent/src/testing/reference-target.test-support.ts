import { afterEach } from "vitest";
import { startTarget, type RunningTarget, type TargetOptions } from "../target/target-server";

/**
 * Registers the hook that closes, after each test of the calling file, the reference target the test started, even
 * when the test failed; returns the function a test starts it with.
 */
export function useReferenceTarget(): (options?: TargetOptions) => Promise<RunningTarget> {
  let target: RunningTarget | undefined;
  afterEach(async () => {
    await target?.close();
    target = undefined;
  });
  return async (options) => {
    target = await startTarget(options);
    return target;
  };
}
