import { ExitCode } from "./cli-exit-codes";
import { runCli } from "./cli-program";
import { readCliEnv } from "./env";

// The first Ctrl-C / SIGINT / SIGTERM stops the wait and aborts the run; a second one exits at once, in case
// the abort request itself hangs.
const interrupt = new AbortController();
const onSignal = () => {
  if (interrupt.signal.aborted) process.exit(ExitCode.interrupted);
  interrupt.abort();
};
process.on("SIGINT", onSignal);
process.on("SIGTERM", onSignal);

runCli(process.argv, readCliEnv(process.env), {
  stdout: process.stdout,
  stderr: process.stderr,
  signal: interrupt.signal,
}).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(ExitCode.failure);
  },
);
