import { Command, CommanderError, InvalidArgumentError } from "commander";
import { THRONG_VERSION } from "@throng/protocol/version";
import { fieldErrors } from "@throng/protocol/errors";
import { RunNotesPatch, type RunNotesPatch as RunNotes } from "@throng/protocol/run-notes";
import { parseRegressionAllowances, type RegressionAllowance } from "@throng/protocol/regression-allowance";
import type { BaselineChoice } from "./baseline-gate";
import { EXIT_CODES_HELP, ExitCode, exitCodeForError } from "./cli-exit-codes";
import type { CliEnv } from "./env";
import { UsageError } from "./errors";
import { createApiClient } from "./api-client";
import { runCommand, type CliIo, type RunArgs } from "./run-command";
import { scriptBundleCommand, scriptUploadCommand } from "./script-command";

interface RunOptions {
  server?: string;
  token?: string;
  wait?: boolean;
  timeout?: number;
  json?: string;
  junit?: string;
  dashboard?: string;
  planName?: string;
  tag: string[];
  note?: string;
  baseline?: string;
  maxRegression?: string;
}

function seconds(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 1 || number > 7 * 86_400)
    throw new InvalidArgumentError("expected whole seconds from 1 to 604800");
  return number;
}

function httpUrl(value: string, flag: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return value;
  } catch {
    // fall through to the usage error
  }
  throw new UsageError(`${flag} must be an http(s) URL, e.g. http://localhost:4000 (got "${value}")`);
}

/** The API and token from options or environment; a missing one is a usage error that says how to give it. */
function resolveApi(options: { server?: string; token?: string }, env: CliEnv): { server: string; token: string } {
  const server = options.server ?? env.server;
  const token = options.token ?? env.token;
  if (!server) throw new UsageError("no server: pass --server <url> or set THRONG_SERVER, e.g. http://localhost:4000");
  if (!token)
    throw new UsageError(
      "no token: pass --token <token> or set THRONG_TOKEN (create an API token in the dashboard under Settings)",
    );
  return { server: httpUrl(server, "--server"), token };
}

function planName(value: string): string {
  const name = value.trim();
  if (!name || name.length > 120) throw new UsageError(`--plan-name must be 1 to 120 characters (got "${value}")`);
  return name;
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** --note and --tag as the run's note and tags, checked with the API's schema so a bad one stops before any run starts. */
function runNotes(options: RunOptions): RunNotes | undefined {
  if (options.note === undefined && options.tag.length === 0) return undefined;
  const patch = {
    ...(options.note !== undefined && { note: options.note }),
    ...(options.tag.length > 0 && { tags: options.tag }),
  };
  const parsed = RunNotesPatch.safeParse(patch);
  if (parsed.success) return parsed.data;
  const first = fieldErrors(parsed.error)[0]!;
  const tag = /^tags\.(\d+)$/.exec(first.path);
  const flag = tag ? `--tag "${options.tag[Number(tag[1])]}"` : first.path === "tags" ? "--tag" : "--note";
  throw new UsageError(`${flag}: ${first.message}`);
}

const RUN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** --baseline and --max-regression, checked before any request: what to hold the run to, and by how much. */
function baselineArgs(options: RunOptions): { baseline?: BaselineChoice; allowances?: RegressionAllowance[] } {
  if (options.maxRegression !== undefined && options.baseline === undefined)
    throw new UsageError("--max-regression holds the run to a baseline: add --baseline pinned or --baseline <run id>");
  if (options.baseline === undefined) return {};
  if (!options.wait) throw new UsageError("--baseline compares a finished run: add --wait");
  const choice = options.baseline.trim();
  if (choice === "pinned" && options.planName === undefined) {
    throw new UsageError(
      "--baseline pinned reads the plan's pinned run: add --plan-name <name> (without it each run saves a new plan, which has no baseline)",
    );
  }
  if (choice !== "pinned" && !RUN_ID.test(choice))
    throw new UsageError(`--baseline must be "pinned" or a run id (a UUID), got "${options.baseline}"`);
  const baseline: BaselineChoice = choice === "pinned" ? { pinned: true } : { runId: choice.toLowerCase() };
  if (options.maxRegression === undefined) return { baseline };
  const parsed = parseRegressionAllowances(options.maxRegression);
  if ("error" in parsed) throw new UsageError(`--max-regression: ${parsed.error}`);
  return { baseline, allowances: parsed.allowances };
}

/** Options and environment together; a missing server or token is a usage error that says how to give it. */
export function resolveRunArgs(planPath: string, options: RunOptions, env: CliEnv): RunArgs {
  const { server, token } = resolveApi(options, env);
  if (!options.wait && (options.json || options.junit))
    throw new UsageError("--json and --junit describe a finished run: add --wait");
  const dashboard = options.dashboard ?? env.dashboard;
  const notes = runNotes(options);
  const held = baselineArgs(options);
  return {
    planPath,
    server,
    token,
    wait: options.wait === true,
    ...(options.timeout !== undefined ? { timeoutSec: options.timeout } : {}),
    ...(options.json ? { json: options.json } : {}),
    ...(options.junit ? { junit: options.junit } : {}),
    ...(dashboard ? { dashboard: httpUrl(dashboard, "--dashboard") } : {}),
    ...(options.planName !== undefined ? { planName: planName(options.planName) } : {}),
    ...(notes ? { notes } : {}),
    ...held,
  };
}

function buildProgram(env: CliEnv, io: CliIo, setExit: (code: ExitCode) => void): Command {
  const program = new Command("throng")
    .description(
      "Throng from CI: start a load-test run of a plan file, follow it, and exit with its verdict; bundle and upload scripted clients.",
    )
    .version(THRONG_VERSION)
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
    .addHelpText("after", EXIT_CODES_HELP)
    .exitOverride();

  program
    .command("run")
    .description(
      "save a plan (YAML or JSON) and start a run of it; with --wait, follow it and exit with its verdict. A script plan's script: { path } (relative to the plan file) is bundled and uploaded first, and the plan runs it by sha256",
    )
    .argument("<plan>", "plan file, validated with the same schema as the API")
    .option("--server <url>", "the Throng API, e.g. http://localhost:4000 (default: $THRONG_SERVER)")
    .option("--token <token>", "an API token (thr_api_..., scope run) from the dashboard (default: $THRONG_TOKEN)")
    .option("--wait", "follow the run until it ends, print the verdict, exit with it")
    .option(
      "--timeout <seconds>",
      "with --wait: give up (exit 6, run aborted) after this long (default: plan duration + ramp-up + 120 s)",
      seconds,
    )
    .option("--json <file>", "with --wait: write { run, verdict, summary, capacity } as JSON")
    .option("--junit <file>", "with --wait: write JUnit XML, one testcase per SLO")
    .option("--dashboard <url>", "the dashboard's URL, for the run link (default: $THRONG_DASHBOARD)")
    .option(
      "--plan-name <name>",
      "save the plan as a new version of the plan with this name (created the first time), so every CI run lands on one plan's history; without it, each run saves a new plan",
    )
    .option(
      "--tag <tag>",
      "tag the run (repeat for more), e.g. --tag nightly --tag release-1.4; lowercase letters, digits, . _ -; the runs list filters by tag",
      collect,
      [],
    )
    .option("--note <text>", 'a note on the run, shown on its page and report, e.g. --note "build $CI_COMMIT_SHA"')
    .option(
      "--baseline <pinned|run-id>",
      "with --wait: compare the run with the plan's pinned baseline (needs --plan-name) or with the run of that id; printed, and in --json and --junit",
    )
    .option(
      "--max-regression <allowances>",
      "with --baseline: exit 99 when a metric is worse than the baseline by more than this, outside the runs' own second-to-second noise, e.g. p99=10%,error-rate=0.5pp (latencies in %, rates in percentage points; p50, p99, corrected-p99, broadcast-p99, connect-p99, login-p99, error-rate, loss-rate or any SLO metric id)",
    )
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (planPath: string, options: RunOptions) => {
      setExit(await runCommand(resolveRunArgs(planPath, options, env), io));
    });
  addScriptCommands(program, env, io, setExit);
  return program;
}

/** `throng script bundle|upload`: scripted clients' modules, bundled with their npm packages and stored by hash. */
function addScriptCommands(program: Command, env: CliEnv, io: CliIo, setExit: (code: ExitCode) => void): void {
  const script = program
    .command("script")
    .description("bundle and upload scripted clients (docs/protocols.md, Scripted clients)");
  script
    .command("bundle")
    .description("bundle a JS/TS entry and the npm packages it imports into one ES module; print its SHA-256 and size")
    .argument("<entry>", "the script's entry file (.js, .mjs, .ts)")
    .option("--out <file>", "write the bundle here")
    .action(async (entry: string, options: { out?: string }) => {
      setExit(await scriptBundleCommand({ entry, ...(options.out ? { out: options.out } : {}) }, io));
    });
  script
    .command("upload")
    .description(
      "bundle (unless --no-bundle) and upload a script; print its sha256, for scenario.script: { sha256 } in a plan",
    )
    .argument("<file>", "the script's entry file, or a bundle with --no-bundle")
    .option("--name <name>", "shown in the dashboard (default: the file's name)")
    .option("--no-bundle", "upload the file as it is (a bundle, or a module that imports nothing but node:*)")
    .option("--server <url>", "the Throng API, e.g. http://localhost:4000 (default: $THRONG_SERVER)")
    .option("--token <token>", "an API token (thr_api_..., scope run) from the dashboard (default: $THRONG_TOKEN)")
    .action(async (path: string, options: { name?: string; bundle: boolean; server?: string; token?: string }) => {
      const api = createApiClient({ ...resolveApi(options, env), ...(io.fetch ? { fetch: io.fetch } : {}) });
      setExit(
        await scriptUploadCommand(
          { api, path, bundle: options.bundle, ...(options.name ? { name: options.name } : {}) },
          io,
        ),
      );
    });
}

/** The whole CLI as a function of its arguments, environment and I/O, so tests run it in-process. */
export async function runCli(argv: string[], env: CliEnv, io: CliIo): Promise<ExitCode> {
  let exitCode: ExitCode = ExitCode.passed;
  const program = buildProgram(env, io, (code) => (exitCode = code));
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    // Commander throws for --help and --version too; those carry exit code 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.passed : ExitCode.usage;
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return exitCodeForError(error);
  }
}
