/**
 * An AbortSignal fired by the first SIGINT or SIGTERM. A second signal exits at once, so a
 * shutdown that hangs (say, a server that never acknowledges the close) can still be interrupted.
 */
export function shutdownSignal(onForce: () => void): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const handler = () => {
    if (controller.signal.aborted) return onForce();
    controller.abort();
  };
  process.on("SIGINT", handler);
  process.on("SIGTERM", handler);
  return {
    signal: controller.signal,
    dispose() {
      process.off("SIGINT", handler);
      process.off("SIGTERM", handler);
    },
  };
}
