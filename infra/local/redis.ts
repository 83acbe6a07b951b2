import { promises as fs } from "node:fs";
import { aptInstall } from "./apt";
import { findBinary } from "./binaries";
import { spawnChild, type ExitInfo } from "./child";
import { externalServer } from "./external-server";
import type { Log } from "./log";
import { redisCommand } from "./redis-command";
import { waitUntil } from "./wait";

export interface RedisOptions {
  dataDir: string;
  port: number;
  log: Log;
  /** Throw-away test data: no persistence at all. */
  ephemeral?: boolean;
  /** The variable that points at an existing server instead (npm test uses TEST_REDIS_URL). */
  envVar?: string;
}

export interface Redis {
  url: string;
  /** Resolves if the local server exits (never for REDIS_URL), so callers can notice it died. */
  exited: Promise<ExitInfo>;
  stop(): Promise<void>;
}

const sbinDirs = ["/usr/sbin", "/usr/bin", "/usr/local/bin"];
const missingMessage =
  "redis-server was not found. Install redis-server (apt-get install redis-server) or set REDIS_URL=redis://host:6379";

/** Uses REDIS_URL when set, otherwise runs a private redis-server on 127.0.0.1:port with data in dataDir. */
export async function ensureRedis(options: RedisOptions): Promise<Redis> {
  const envVar = options.envVar ?? "REDIS_URL";
  const external = await externalServer(envVar, async (url) => {
    const reply = await redisCommand(url, ["PING"]).catch((error: Error) => error.message);
    return reply === "PONG" ? undefined : `Redis there did not answer PING (${reply})`;
  });
  if (external) {
    options.log(`using ${envVar}`);
    return { url: external, exited: new Promise(() => undefined), stop: async () => undefined };
  }
  return startLocal(options, await redisServerBinary(options.log));
}

async function redisServerBinary(log: Log): Promise<string> {
  const found = findBinary("redis-server", sbinDirs);
  if (found) return found;
  log("redis-server is not installed; installing it with apt-get");
  if (!(await aptInstall(["redis-server"], log))) throw new Error(missingMessage);
  const installed = findBinary("redis-server", sbinDirs);
  if (!installed) throw new Error(missingMessage);
  return installed;
}

async function startLocal({ dataDir, port, log, ephemeral }: RedisOptions, binary: string): Promise<Redis> {
  await fs.mkdir(dataDir, { recursive: true });
  // Append-only file: every write is kept, so jobs and sessions survive a restart of `npm start`.
  const persistence = ephemeral
    ? ["--appendonly", "no", "--save", ""]
    : ["--appendonly", "yes", "--appendfsync", "everysec", "--save", ""];
  const server = spawnChild({
    name: "redis",
    command: binary,
    args: [
      "--bind",
      "127.0.0.1",
      "--port",
      String(port),
      "--dir",
      dataDir,
      "--daemonize",
      "no",
      "--logfile",
      "",
      ...persistence,
    ],
    cwd: dataDir,
    stopLast: true,
  });
  const url = `redis://127.0.0.1:${port}`;
  const stop = async () => {
    await server.stop("SIGTERM", 30_000); // redis-server flushes the append-only file on SIGTERM.
  };
  try {
    await waitUntil(async () => (await redisCommand(url, ["PING"], 500)) === "PONG", {
      what: `Redis on 127.0.0.1:${port}`,
      timeoutMs: 30_000,
      abort: server.diedEarly,
    });
  } catch (error) {
    await stop();
    throw error;
  }
  log(`Redis ready on 127.0.0.1:${port} (data in ${dataDir})`);
  return { url, exited: server.exited, stop };
}
