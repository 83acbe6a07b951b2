import { stopAllChildren } from "../infra/local/child";

/**
 * Runs a bench's `main` and exits: 0 when it ends, 1 with its stack when it fails, 130 on SIGINT/SIGTERM; every
 * child process it started is stopped first.
 */
export function runBenchMain(main: () => Promise<void>, log: (line: string) => void): void {
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => void stopAllChildren().finally(() => process.exit(130)));
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      log(`failed: ${error instanceof Error ? error.stack : String(error)}`);
      void stopAllChildren().finally(() => process.exit(1));
    },
  );
}
