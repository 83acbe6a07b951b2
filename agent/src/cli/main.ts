import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import type { TcpFraming } from "@throng/protocol/plan";
import { KCP_MODE_NAMES, type KcpModeName } from "@throng/protocol/kcp-modes";
import { THRONG_VERSION } from "@throng/protocol/version";
import { defaultConfigPath } from "../connection/credential-file";
import { readAgentEnv, type AgentEnv } from "../env";
import { runEngineChild, ENGINE_CHILD_COMMAND } from "../engine/engines";
import { runTargetWorker, TARGET_WORKER_COMMAND } from "../target/target-group";
import { parseScriptPermission, type ScriptPermission } from "../scripts/script-permission";
import { isScriptWorker, runScriptWorker } from "../scripts/script-worker";
import { preferIo } from "../transports/native-io";
import { connectCommand, targetCommand, type ConnectArgs, type TargetArgs } from "./commands";
import { FRAMING_SPEC_HELP, parseFramingSpec } from "./framing-spec";
import { PlanFileError } from "@throng/protocol/plan-file";
import { type RunArgs, runCommand, WatchTargetError } from "./run-command";
import { SecretsError } from "./standalone-secrets";
import { type WatchArgs, watchCommand } from "./watch-command";
import { ExitCode, exitCodeForError } from "./exit-codes";

const EXIT_CODES_HELP = `
Exit codes:
  0  stopped by SIGINT/SIGTERM
  1  unexpected failure (see the error message)
  2  bad arguments or configuration
  3  the server rejected the enrolment token or credential
  4  the server does not support this agent's protocol version
  5  run: a plan SLO failed`;

function collectLabel(value: string, labels: Record<string, string> = {}): Record<string, string> {
  const at = value.indexOf("=");
  if (at <= 0) throw new InvalidArgumentError(`expected key=value, e.g. region=eu-west`);
  return { ...labels, [value.slice(0, at)]: value.slice(at + 1) };
}

function integer(min: number, max: number) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    }
    return number;
  };
}

function framing(value: string) {
  const parsed = parseFramingSpec(value);
  if (!parsed) throw new InvalidArgumentError(`expected ${FRAMING_SPEC_HELP}`);
  return parsed;
}

function kcpMode(value: string): KcpModeName {
  if (!(KCP_MODE_NAMES as readonly string[]).includes(value))
    throw new InvalidArgumentError(`expected one of ${KCP_MODE_NAMES.join(", ")}`);
  return value as KcpModeName;
}

function scriptHashes(value: string): ScriptPermission {
  try {
    return parseScriptPermission(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

function list(value: string): string[] {
  return value
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
}

type SetExit = (code: ExitCode) => void;

// One function per command, in the order --help lists them; each reads top to bottom like its own --help.
function buildProgram(configPath: string, envSecrets: Record<string, string>, setExit: SetExit): Command {
  const program = new Command("throng-agent")
    .description("Throng load agent: joins the control plane and generates load; also serves the reference target.")
    .version(THRONG_VERSION)
    .addHelpText("after", EXIT_CODES_HELP)
    .exitOverride();
  addConnectCommand(program, configPath, setExit);
  addRunCommand(program, envSecrets, setExit);
  addWatchCommand(program, configPath, setExit);
  addTargetCommand(program, setExit);
  return program;
}

interface ConnectOptions {
  server: string;
  token?: string;
  config: string;
  label?: Record<string, string>;
  engines?: number;
  sourceAddresses?: string[];
  allowTarget?: string[];
  allowScripts?: true | ScriptPermission;
}

function addConnectCommand(program: Command, configPath: string, setExit: SetExit): void {
  program
    .command("connect")
    .description("connect to the Throng API and run the shards it assigns, until SIGINT/SIGTERM")
    .requiredOption("--server <url>", "http(s) address of the Throng API, e.g. http://localhost:4000")
    .option("--token <token>", "one-time enrolment token (not needed once a credential is stored)")
    .option("--config <path>", "file holding the agent credential", configPath)
    .option("--label <key=value>", "label shown in the dashboard (repeatable)", collectLabel)
    // Engine processes are pre-forked at startup (a pool), so one per core is safe against the 2 s start lead.
    .option(
      "--engines <n>",
      `engine processes per shard (default: one per core, ${availableParallelism()} here, forked ahead of assignments; more when a shard's clients need them under the open-file limit)`,
      integer(1, 256),
    )
    .option(
      "--source-addresses <ips>",
      "comma-separated local IPs to spread connections over (a rig's extra addresses on a real network); a loopback target gets 127.x addresses of its own without it",
      list,
    )
    .option(
      "--allow-target <rules>",
      "only load these targets, whatever the server assigns: comma-separated host, host:port, *.domain",
      list,
    )
    .option(
      "--allow-scripts [sha256s]",
      "run scripted plans (JS on this machine): any, or only the bundles with these comma-separated SHA-256s",
      scriptHashes,
    )
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (options: ConnectOptions) => {
      setExit(await connectCommand(connectArgs(options)));
    });
}

function connectArgs(options: ConnectOptions): ConnectArgs {
  const allowScripts: ScriptPermission | undefined =
    options.allowScripts === true ? { any: true } : options.allowScripts;
  const args = {
    server: options.server,
    configPath: options.config,
    labels: options.label ?? {},
    allowTargets: options.allowTarget ?? [],
    ...(options.engines ? { engines: options.engines } : {}),
    ...(options.sourceAddresses ? { sourceAddresses: options.sourceAddresses } : {}),
    ...(allowScripts ? { allowScripts } : {}),
  };
  return options.token ? { ...args, token: options.token } : args;
}

/** What commander hands `run`'s action: its flags, named as runCommand takes them. */
type RunOptions = Omit<RunArgs, "planPath" | "envSecrets">;

function addRunCommand(program: Command, envSecrets: Record<string, string>, setExit: SetExit): void {
  program
    .command("run")
    .description("run a plan file (YAML or JSON) standalone: live progress, final summary, exit 5 when an SLO fails")
    .argument("<plan>", "plan file, validated with the same schema as the API")
    .option("--out <file>", "write every per-second snapshot as JSON lines")
    .option(
      "--engines <n>",
      "engine processes (default: one per core, more when the clients need them under the open-file limit)",
      integer(1, 256),
    )
    .option(
      "--source-addresses <ips>",
      "comma-separated local IPs to spread connections over, e.g. 127.0.0.2,127.0.0.3",
      list,
    )
    .option("--quiet", "no per-second lines, only the summary")
    .option("--allow-scripts", "run the plan's script (scenario kind script: JS run on this machine)")
    .option(
      "--secrets-file <file>",
      "values for the plan's {{secrets.NAME}}: NAME=value lines (THRONG_SECRET_NAME in the environment wins)",
    )
    .option(
      "--watch-pid <pid>",
      "also watch the server under test on this host (e.g. a loopback target): its CPU, memory and the host's packets join every second of the progress, summary and --out (a `server` field)",
      integer(1, 2 ** 31),
    )
    .option(
      "--watch-name <name>",
      "like --watch-pid, by process name (comm) or a string its command line contains; must match one process",
    )
    .action(async (planPath: string, options: RunOptions) => {
      try {
        setExit(await runCommand({ planPath, ...options, envSecrets }));
      } catch (error) {
        if (
          !(error instanceof PlanFileError) &&
          !(error instanceof WatchTargetError) &&
          !(error instanceof SecretsError)
        )
          throw error;
        console.error(error.message);
        setExit(ExitCode.usage);
      }
    });
}

/** What commander hands `watch`'s action: watchCommand's arguments, with the flags' own names for two of them. */
type WatchOptions = Omit<WatchArgs, "configPath" | "labels"> & { config: string; label?: Record<string, string> };

function addWatchCommand(program: Command, configPath: string, setExit: SetExit): void {
  program
    .command("watch")
    .description(
      "sample a server process's CPU and memory and the host's network once a second from /proc; with --server, join the control plane as a watcher whose samples become part of the runs that ask for one (plan `watch`)",
    )
    .option("--pid <pid>", "process id", integer(1, 2 ** 31))
    .option("--name <name>", "process name (comm) or a string its command line contains; must match one process")
    .option("--out <file>", "write every per-second sample as JSON lines (without --server)")
    .option("--duration-sec <s>", "stop after this many seconds (without --server)", integer(1, 86_400))
    .option("--server <url>", "http(s) address of the Throng API: watch for its runs instead of printing")
    .option("--token <token>", "one-time enrolment token (not needed once a credential is stored)")
    // Its own file: a watcher is an agent of its own, and must not take over the load agent's credential on this host.
    .option(
      "--config <path>",
      "file holding the watcher's credential",
      configPath.replace(/agent\.json$/, "watcher.json"),
    )
    .option(
      "--label <key=value>",
      "label a plan's `watch.labels` can ask for, e.g. role=server (repeatable)",
      collectLabel,
    )
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (options: WatchOptions) => {
      const { config, label, ...rest } = options;
      setExit(await watchCommand({ ...rest, configPath: config, labels: label ?? {} }));
    });
}

interface TargetOptions {
  host: string;
  port: number;
  tcpPort?: number;
  framing?: TcpFraming;
  udpPort?: number;
  kcpPort?: number;
  kcpMode: KcpModeName;
  delayMs: number;
  cpuUs?: number;
  stallEveryMs?: number;
  stallMs?: number;
  maxClients?: number;
  processes: number;
  reportEverySec?: number;
  tlsCert?: string;
  tlsKey?: string;
}

function addTargetCommand(program: Command, setExit: SetExit): void {
  program
    .command("target")
    .description("run the reference target: WebSocket (+ TCP, UDP) answering ping, echo, room join/broadcast and login")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option(
      "--port <port>",
      "WebSocket port (0 picks a free one); GET /stats reports the target's CPU and memory",
      integer(0, 65_535),
      7070,
    )
    .option("--tcp-port <port>", "also serve TCP on this port", integer(0, 65_535))
    .option("--framing <spec>", `TCP framing: ${FRAMING_SPEC_HELP}`, framing)
    .option("--udp-port <port>", "also serve UDP on this port", integer(0, 65_535))
    .option("--kcp-port <port>", "also serve KCP (message mode) on this port", integer(0, 65_535))
    .option(
      "--kcp-mode <mode>",
      "the KCP endpoint's tuning: normal, fast, fast2 or fast3 (kcptun's presets)",
      kcpMode,
      "fast",
    )
    .option("--delay-ms <ms>", "wait this long before each reply", integer(0, 600_000), 0)
    .option("--cpu-us <us>", "burn this much CPU per message (a known server capacity)", integer(0, 1_000_000))
    .option("--stall-every-ms <ms>", "every this many ms, hold all replies for --stall-ms", integer(1, 3_600_000))
    .option(
      "--stall-ms <ms>",
      'length of each stall (also triggered by a {"type":"stall","ms":N} message)',
      integer(1, 600_000),
    )
    .option(
      "--max-clients <n>",
      "refuse connections past this many (per process with --processes)",
      integer(0, 10_000_000),
    )
    .option(
      "--processes <n>",
      "serve from this many processes on the same ports (SO_REUSEPORT, native I/O path; each has its own open-file limit, so one target holds more connections); GET /stats sums them",
      integer(1, 256),
      1,
    )
    .option("--report-every-sec <s>", "print the target's CPU and memory this often", integer(1, 3_600))
    .option("--tls-cert <file>", "serve wss:// with this PEM certificate (with --tls-key)")
    .option("--tls-key <file>", "the PEM private key of --tls-cert")
    .action(async (options: TargetOptions) => {
      const tls = readTargetTls(options);
      if (typeof tls === "string") {
        console.error(`error: ${tls}`);
        setExit(ExitCode.usage);
        return;
      }
      setExit(await targetCommand(targetArgs(options, tls)));
    });
}

type TargetTls = { cert: Buffer; key: Buffer };

/** The wss:// certificate and key, none without --tls-cert/--tls-key, or what is wrong with them (a usage error). */
function readTargetTls(options: TargetOptions): TargetTls | undefined | string {
  if (!options.tlsCert && !options.tlsKey) return undefined;
  if (!options.tlsCert || !options.tlsKey) return "--tls-cert and --tls-key go together";
  if (options.processes > 1)
    return "--processes serves ws:// and TCP on the native I/O path; a wss:// target runs in one process";
  try {
    return { cert: readFileSync(options.tlsCert), key: readFileSync(options.tlsKey) };
  } catch (error) {
    return `cannot read the TLS certificate or key: ${(error as Error).message}`;
  }
}

function targetArgs(options: TargetOptions, tls: TargetTls | undefined): TargetArgs {
  return {
    host: options.host,
    port: options.port,
    delayMs: options.delayMs,
    ...(options.tcpPort !== undefined
      ? { tcp: { port: options.tcpPort, framing: options.framing ?? { kind: "length-prefix", headerBytes: 2 } } }
      : {}),
    ...(options.udpPort !== undefined ? { udp: { port: options.udpPort } } : {}),
    ...(options.kcpPort !== undefined ? { kcp: { port: options.kcpPort, mode: options.kcpMode } } : {}),
    ...(options.cpuUs !== undefined ? { cpuUsPerMessage: options.cpuUs } : {}),
    ...(options.stallEveryMs !== undefined
      ? { stallEveryMs: options.stallEveryMs, stallMs: options.stallMs ?? 100 }
      : {}),
    ...(options.maxClients !== undefined ? { maxClients: options.maxClients } : {}),
    ...(options.reportEverySec !== undefined ? { reportEverySec: options.reportEverySec } : {}),
    ...(options.processes > 1 ? { processes: options.processes } : {}),
    ...(tls ? { tls } : {}),
  };
}

async function main(argv: string[]): Promise<ExitCode> {
  let env: AgentEnv;
  try {
    env = readAgentEnv(process.env);
  } catch (error) {
    console.error(`error: ${(error as Error).message}`);
    return ExitCode.usage;
  }
  preferIo(env.io);
  // An engine process forked by `run`: it lives until its parent disconnects.
  if (argv[2] === ENGINE_CHILD_COMMAND) {
    runEngineChild();
    return new Promise(() => {});
  }
  // One of a target's --processes: it lives until its parent disconnects.
  if (argv[2] === TARGET_WORKER_COMMAND) {
    runTargetWorker();
    return new Promise(() => {});
  }
  let exitCode: ExitCode = ExitCode.ok;
  const program = buildProgram(
    defaultConfigPath(env.configHome, env.homeDir),
    env.secrets,
    (code) => (exitCode = code),
  );
  try {
    await program.parseAsync(argv);
    return exitCode;
  } catch (error) {
    // Commander throws for --help and --version too; those carry exit code 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    return exitCodeForError(error);
  }
}

// The bundled agent is also its scripts' worker file (scripts/script-runner.ts): a worker runs the script, not a command.
if (isScriptWorker()) void runScriptWorker();
else
  main(process.argv).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(ExitCode.failure);
    },
  );
