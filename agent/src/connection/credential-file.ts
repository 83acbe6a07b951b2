import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { AgentAuth } from "@throng/protocol/agent";
import { ThrongError } from "@throng/protocol/errors";
import { normaliseServer } from "./server-url";

/** What the server issued at enrolment; the secret never appears in logs. */
export interface StoredCredential {
  agentId: string;
  secret: string;
}

/** On disk: `{ "servers": { "<API address>": { agentId, secret } } }`, one entry per API. */
interface ConfigFile {
  servers: Record<string, unknown>;
}

/** `$XDG_CONFIG_HOME/throng/agent.json`, else `~/.config/throng/agent.json`. */
export function defaultConfigPath(xdgConfigHome: string | undefined, homeDir: string): string {
  const base = xdgConfigHome && xdgConfigHome.trim() !== "" ? xdgConfigHome : join(homeDir, ".config");
  return join(base, "throng", "agent.json");
}

async function readConfig(path: string): Promise<ConfigFile> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { servers: {} };
    throw new ThrongError("internal", `cannot read agent config ${path}: ${(error as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ThrongError(
      "validation_failed",
      `agent config ${path} is not valid JSON; fix it or delete it and enrol again`,
    );
  }
  const servers = (json as { servers?: unknown } | null)?.servers;
  if (servers === null || typeof servers !== "object" || Array.isArray(servers)) {
    throw new ThrongError(
      "validation_failed",
      `agent config ${path} has no "servers" object; fix it or delete it and enrol again`,
    );
  }
  return { servers: servers as Record<string, unknown> };
}

/** The credential stored for this API, or undefined when there is none (or it is malformed). */
export async function readCredential(path: string, server: string): Promise<StoredCredential | undefined> {
  const config = await readConfig(path);
  const entry = config.servers[normaliseServer(server)];
  if (entry === undefined) return undefined;
  const parsed = AgentAuth.safeParse({ ...(entry as object), kind: "credential" });
  if (!parsed.success || parsed.data.kind !== "credential") return undefined;
  return { agentId: parsed.data.agentId, secret: parsed.data.secret };
}

/** Stores the credential for this API, keeping other entries; file 0600 in a 0700 directory. */
export async function writeCredential(path: string, server: string, credential: StoredCredential): Promise<void> {
  const config = await readConfig(path);
  config.servers[normaliseServer(server)] = { agentId: credential.agentId, secret: credential.secret };
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  // Write then rename, so a crash never leaves a half-written file that loses the credential.
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temp, 0o600);
  await rename(temp, path);
}
