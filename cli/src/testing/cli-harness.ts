import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../cli-program";
import type { CliEnv } from "../env";

/** What an in-process `throng` run printed, with a way to await a line instead of sleeping. */
export interface CliRun {
  exitCode: Promise<number>;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of `pattern` (already printed or still to come). */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  interrupt(): void;
}

/** Runs the CLI in-process with captured output; `argv` is what follows `throng`. */
export function startCli(argv: string[], env: CliEnv = {}): CliRun {
  let out = "";
  let err = "";
  const waiters: Array<{ pattern: RegExp; resolve: (match: RegExpMatchArray) => void }> = [];
  const interrupt = new AbortController();
  const stdout = {
    write(text: string) {
      out += text;
      for (const waiter of [...waiters]) {
        const match = out.match(waiter.pattern);
        if (match) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(match);
        }
      }
      return true;
    },
  };
  const exitCode = runCli(["node", "throng", ...argv], env, {
    stdout,
    stderr: { write: (text: string) => (err += text) },
    signal: interrupt.signal,
    pollMs: 100,
  });
  return {
    exitCode,
    stdout: () => out,
    stderr: () => err,
    waitFor(pattern) {
      const match = out.match(pattern);
      if (match) return Promise.resolve(match);
      return new Promise((resolve, reject) => {
        waiters.push({ pattern, resolve });
        void exitCode.then((code) =>
          reject(new Error(`throng exited ${code} before printing ${pattern}\nstdout: ${out}\nstderr: ${err}`)),
        );
      });
    },
    interrupt: () => interrupt.abort(),
  };
}

/** A scratch directory holding `plan.yaml` with the given text. */
export async function planDir(planYaml: string): Promise<{ dir: string; plan: string }> {
  const dir = await mkdtemp(join(tmpdir(), "throng-cli-"));
  await writeFile(join(dir, "plan.yaml"), planYaml);
  return { dir, plan: join(dir, "plan.yaml") };
}

/** CliIo that keeps what was printed; `fetch` answers the API calls (default: none expected). */
export function capturedIo(fetch?: typeof globalThis.fetch) {
  let out = "";
  let err = "";
  return {
    stdout: { write: (text: string) => (out += text) },
    stderr: { write: (text: string) => (err += text) },
    signal: new AbortController().signal,
    fetch:
      fetch ??
      (async () => {
        throw new Error("no request expected");
      }),
    out: () => out,
    err: () => err,
  };
}
