/** Polls `check` every `intervalMs` until it is true; fails after `timeoutMs` or as soon as `abort` rejects. */
export async function waitUntil(
  check: () => Promise<boolean>,
  options: { what: string; timeoutMs: number; intervalMs?: number; abort?: Promise<never> },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let aborted: unknown;
  let isAborted = false;
  options.abort?.catch((error: unknown) => {
    aborted = error;
    isAborted = true;
  });
  for (;;) {
    if (isAborted) throw aborted;
    if (await check().catch(() => false)) return;
    if (isAborted) throw aborted;
    if (Date.now() > deadline)
      throw new Error(`Timed out after ${Math.round(options.timeoutMs / 1000)} s waiting for ${options.what}.`);
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
