import { Command, CommanderError, InvalidArgumentError } from "commander";
import { THRONG_VERSION } from "@throng/protocol/version";
import { defaultConfigPath } from "../connection/credential-file";
import { readAgentEnv } from "../env";
import { connectCommand, targetCommand } from "./commands";
import { ExitCode, exitCodeForError } from "./exit-codes";

const EXIT_CODES_HELP = `
Exit codes:
  0  stopped by SIGINT/SIGTERM
  1  unexpected failure (see the error message)
  2  bad arguments or configuration
  3  the server rejected the enrolment token or credential
  4  the server does not support this agent's protocol version`;

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

function buildProgram(configPath: string, setExit: (code: ExitCode) => void): Command {
  const program = new Command("throng-agent")
    .description("Throng load agent: joins the control plane and generates load; also serves the reference target.")
    .version(THRONG_VERSION)
    .addHelpText("after", EXIT_CODES_HELP)
    .exitOverride();

  program
    .command("connect")
    .description("connect to the Throng API and run the shards it assigns, until SIGINT/SIGTERM")
    .requiredOption("--server <url>", "http(s) address of the Throng API, e.g. http://localhost:4000")
    .option("--token <token>", "one-time enrolment token (not needed once a credential is stored)")
    .option("--config <path>", "file holding the agent credential", configPath)
    .option("--label <key=value>", "label shown in the dashboard (repeatable)", collectLabel)
    .addHelpText("after", EXIT_CODES_HELP)
    .action(async (options: { server: string; token?: string; config: string; label?: Record<string, string> }) => {
      const args = { server: options.server, configPath: options.config, labels: options.label ?? {} };
      setExit(await connectCommand(options.token ? { ...args, token: options.token } : args));
    });

  program
    .command("target")
    .description("run the reference WebSocket target: answers each ping with a pong, echoes anything else")
    .option("--host <host>", "address to listen on", "127.0.0.1")
    .option("--port <port>", "port to listen on (0 picks a free one)", integer(0, 65_535), 7070)
    .option("--delay-ms <ms>", "wait this long before each pong", integer(0, 600_000), 0)
    .action(async (options: { host: string; port: number; delayMs: number }) => {
      setExit(await targetCommand(options));
    });
  return program;
}

async function main(argv: string[]): Promise<ExitCode> {
  const env = readAgentEnv(process.env);
  let exitCode: ExitCode = ExitCode.ok;
  const program = buildProgram(defaultConfigPath(env.configHome, env.homeDir), (code) => (exitCode = code));
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

main(process.argv).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(ExitCode.failure);
  },
);
