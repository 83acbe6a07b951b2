import { writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, resolve } from "node:path";
import type { PlanSpec } from "@throng/protocol/plan";
import type { ApiClient } from "./api-client";
import { ExitCode } from "./cli-exit-codes";
import { ScriptBundleError } from "./errors";
import type { CliIo } from "./run-command";
import { bundleScript, readScriptFile, type ScriptBundle } from "./script-bundle";

const size = (bytes: number) => (bytes < 10 * 1024 ? `${bytes} bytes` : `${(bytes / 1024).toFixed(1)} KiB`);

/** `throng script bundle <entry> [--out file]`: what upload would store, and the file when asked for. */
export async function scriptBundleCommand(
  args: { entry: string; out?: string },
  io: Pick<CliIo, "stdout" | "stderr">,
): Promise<ExitCode> {
  const bundle = await bundleScript(args.entry);
  if (args.out) {
    try {
      await writeFile(args.out, bundle.source);
    } catch (error) {
      throw new ScriptBundleError(
        `cannot write ${args.out}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      );
    }
  }
  io.stdout.write(`sha256 ${bundle.sha256}\nsize   ${size(bundle.sizeBytes)}\n`);
  io.stderr.write(
    args.out
      ? `wrote ${args.out}\n`
      : "not written anywhere: pass --out <file> to keep it, or run throng script upload\n",
  );
  return ExitCode.passed;
}

/** Uploads a bundle; the one line on stdout is its sha256, for `script: { sha256 }` in a plan. */
export async function uploadScript(api: ApiClient, bundle: ScriptBundle, name: string) {
  const stored = await api.uploadScript({ name, source: bundle.source });
  if (stored.sha256 !== bundle.sha256)
    throw new Error(
      `the API stored the script as ${stored.sha256}, not its SHA-256 ${bundle.sha256}: is --server a Throng API of this version?`,
    );
  return stored;
}

/** `throng script upload <entry-or-bundle> [--name] [--no-bundle]`. */
export async function scriptUploadCommand(
  args: { api: ApiClient; path: string; name?: string; bundle: boolean },
  io: Pick<CliIo, "stdout" | "stderr">,
): Promise<ExitCode> {
  const bundle = args.bundle ? await bundleScript(args.path) : await readScriptFile(args.path);
  const stored = await uploadScript(args.api, bundle, args.name ?? basename(args.path));
  io.stdout.write(`${stored.sha256}\n`);
  io.stderr.write(
    `uploaded "${stored.name}" (${size(stored.sizeBytes)}); run it from a plan with scenario.script: { sha256: ${stored.sha256} }\n`,
  );
  return ExitCode.passed;
}

/**
 * A plan file's `script: { path }` (relative to the plan file) for the control plane: bundled, uploaded, and the plan
 * returned with `{ sha256 }` instead, said on stderr. Other plans come back as they are.
 */
export async function withUploadedScript(
  spec: PlanSpec,
  planPath: string,
  api: ApiClient,
  io: Pick<CliIo, "stderr">,
): Promise<PlanSpec> {
  const { scenario } = spec;
  if (scenario.kind !== "script" || !("path" in scenario.script)) return spec;
  const entry = isAbsolute(scenario.script.path)
    ? scenario.script.path
    : resolve(dirname(planPath), scenario.script.path);
  const stored = await uploadScript(api, await bundleScript(entry), basename(entry));
  io.stderr.write(
    `bundled and uploaded ${scenario.script.path} (${size(stored.sizeBytes)}); the plan runs it as script: { sha256: ${stored.sha256} }\n`,
  );
  return { ...spec, scenario: { ...scenario, script: { sha256: stored.sha256 } } };
}
