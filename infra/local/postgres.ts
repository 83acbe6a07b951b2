import { execFileSync } from "node:child_process";
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import pg from "pg";
import { findBinary, isRoot, postgresBinDirs } from "./binaries";
import { runCommand, spawnChild, type ExitInfo } from "./child";
import { externalServer } from "./external-server";
import type { Log } from "./log";
import { waitUntil } from "./wait";

export interface PostgresOptions {
  dataDir: string;
  port: number;
  log: Log;
  /** Throw-away test data: skip fsync so creating many databases stays fast. */
  ephemeral?: boolean;
  /** The variable that points at an existing server instead (tests use TEST_DATABASE_URL). */
  envVar?: string;
}

export interface Postgres {
  /** The `throng` database. */
  url: string;
  /** A superuser connection on which tests create and drop their own databases. */
  adminUrl: string;
  /** Resolves if the local server exits (never for DATABASE_URL), so callers can notice it died. */
  exited: Promise<ExitInfo>;
  stop(): Promise<void>;
}

const databaseName = "throng";
const superuser = "postgres";
const missingMessage =
  "PostgreSQL server binaries (initdb, postgres) were not found. Install PostgreSQL (apt-get install postgresql) or set DATABASE_URL=postgres://user:pass@host:5432/db";

/** Uses DATABASE_URL when set, otherwise runs a private PostgreSQL on 127.0.0.1:port with data in dataDir. */
export async function ensurePostgres(options: PostgresOptions): Promise<Postgres> {
  const envVar = options.envVar ?? "DATABASE_URL";
  const external = await externalServer(envVar, async (url) => {
    const check = await canConnect(url);
    return check.connected ? undefined : `PostgreSQL there refused: ${check.error}`;
  });
  if (external) {
    options.log(`using ${envVar} (${redact(external)})`);
    return { url: external, adminUrl: external, exited: new Promise(() => undefined), stop: async () => undefined };
  }
  return startLocal(options);
}

async function startLocal({ dataDir, port, log, ephemeral }: PostgresOptions): Promise<Postgres> {
  const postgresBin = findBinary("postgres", postgresBinDirs());
  if (!postgresBin) throw new Error(missingMessage);
  // initdb must be the same major version as the server: take it from the same directory.
  const binDir = path.dirname(await fs.realpath(postgresBin));
  const initdbBin = path.join(binDir, "initdb");
  if (!existsSync(initdbBin)) throw new Error(missingMessage);

  await fs.mkdir(dataDir, { recursive: true }); // initdb accepts an empty one, and it is the children's cwd.
  const user = isRoot() ? await postgresUser(dataDir, log) : {};
  const adminUrl = `postgres://${superuser}@127.0.0.1:${port}/postgres`;

  if (!existsSync(path.join(dataDir, "PG_VERSION"))) {
    log(`initialising a new PostgreSQL cluster in ${dataDir}`);
    await runCommand({
      name: "initdb",
      command: initdbBin,
      args: [
        "-D",
        dataDir,
        "-U",
        superuser,
        "--auth-host=trust",
        "--auth-local=trust",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-instructions",
        ...(ephemeral ? ["--no-sync"] : []),
      ],
      cwd: dataDir, // The postgres user cannot read root's home, which is often the cwd.
      ...user,
    });
  }

  const settings = {
    listen_addresses: "127.0.0.1",
    port: String(port),
    unix_socket_directories: dataDir,
    max_connections: "200", // Parallel test files each hold a small pool.
    ...(ephemeral ? { fsync: "off", synchronous_commit: "off", full_page_writes: "off" } : {}),
  };
  const server = spawnChild({
    name: "postgres",
    command: postgresBin,
    args: ["-D", dataDir, ...Object.entries(settings).flatMap(([key, value]) => ["-c", `${key}=${value}`])],
    cwd: dataDir,
    stopLast: true,
    ...user,
  });
  const stop = async () => {
    await server.stop("SIGINT", 30_000); // SIGINT is PostgreSQL's "fast" shutdown: no waiting for clients.
  };
  try {
    await waitUntil(async () => (await canConnect(adminUrl)).connected, {
      what: `PostgreSQL on 127.0.0.1:${port}`,
      timeoutMs: 60_000,
      abort: server.diedEarly,
    });
    await createDatabaseIfMissing(adminUrl, databaseName);
  } catch (error) {
    await stop();
    throw error;
  }
  log(`PostgreSQL ready on 127.0.0.1:${port} (data in ${dataDir})`);
  return { url: `postgres://${superuser}@127.0.0.1:${port}/${databaseName}`, adminUrl, exited: server.exited, stop };
}

/** PostgreSQL refuses to run as root: as root, run it as `postgres` and hand it the data directory. */
async function postgresUser(dataDir: string, log: Log): Promise<{ uid: number; gid: number }> {
  if (!userExists("postgres")) {
    log("creating system user postgres");
    await runCommand({
      name: "useradd",
      command: "useradd",
      args: ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", "postgres"],
    });
  }
  const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
  if ((await fs.stat(dataDir)).uid !== uid) {
    await runCommand({ name: "chown", command: "chown", args: ["-R", `${uid}:${gid}`, dataDir] });
  }
  await runCommand({ name: "access check", command: "test", args: ["-w", dataDir], uid, gid }).catch(() => {
    throw new Error(
      `The postgres user cannot reach ${dataDir}: make its parent directories traversable (chmod o+x) or set DATABASE_URL.`,
    );
  });
  return { uid, gid };
}

function userExists(name: string): boolean {
  try {
    execFileSync("id", ["-u", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

async function canConnect(url: string): Promise<{ connected: boolean; error?: string }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on("error", () => undefined); // A server shutting down mid-check must not crash us.
  try {
    await client.connect();
    await client.query("select 1");
    return { connected: true };
  } catch (error) {
    return { connected: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function createDatabaseIfMissing(adminUrl: string, name: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const found = await client.query("select 1 from pg_database where datname = $1", [name]);
    if (found.rowCount === 0) await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
}

function redact(url: string): string {
  return url.replace(/\/\/([^:@/]+):[^@/]*@/, "//$1:***@");
}
