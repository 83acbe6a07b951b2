import { execFile } from "node:child_process";
import { promisify } from "node:util";

const execFileAsync = promisify(execFile);

/** Runs a command and returns its stdout; throws with its stderr when it exits non-zero. */
export async function capture(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<string> {
  try {
    const { stdout } = await execFileAsync(command, args, { ...options, maxBuffer: 64 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const failure = error as { stderr?: string; message: string };
    throw new Error(`${command} ${args.join(" ")} failed: ${(failure.stderr ?? "").trim() || failure.message}`);
  }
}

/** True when the command exits 0. */
export async function succeeds(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): Promise<boolean> {
  return capture(command, args, options).then(
    () => true,
    () => false,
  );
}
