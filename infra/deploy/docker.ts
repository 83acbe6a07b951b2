// A Docker daemon and a compose command for the deploy test: found, or installed and started where we are root
// on Debian (as CI is), or a clear reason to skip.
import { spawn } from "node:child_process";
import { openSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { aptInstall } from "../local/apt";
import { findBinary, isRoot } from "../local/binaries";
import type { Log } from "../local/log";
import { waitUntil } from "../local/wait";
import { succeeds } from "./shell";

export type DockerAvailability = { ok: true } | { ok: false; reason: string };

/** A daemon that answers `docker info`: the running one, or dockerd started here (and left running). */
export async function ensureDockerDaemon(log: Log): Promise<DockerAvailability> {
  if (findBinary("docker") && (await succeeds("docker", ["info"]))) return { ok: true };
  if (!isRoot()) {
    return {
      ok: false,
      reason:
        "no Docker daemon answers and we are not root to start one: start Docker (or add yourself to the docker group) and run npm run test:deploy",
    };
  }
  if (!findBinary("dockerd") && !(await aptInstall(["docker.io"], log))) {
    return {
      ok: false,
      reason: "Docker is not installed and apt-get is not available here: install Docker and run npm run test:deploy",
    };
  }
  const dockerd = findBinary("dockerd");
  if (!dockerd) return { ok: false, reason: "dockerd is missing after installing docker.io" };
  const logFile = path.join(os.tmpdir(), "throng-dockerd.log");
  log(`starting dockerd (its log: ${logFile}); it keeps running after the test`);
  const output = openSync(logFile, "a");
  // Detached: the daemon outlives this script, as a system service would.
  spawn(dockerd, [], { detached: true, stdio: ["ignore", output, output] }).unref();
  try {
    await waitUntil(() => succeeds("docker", ["info"]), { what: "dockerd to answer docker info", timeoutMs: 60_000 });
  } catch (error) {
    return {
      ok: false,
      reason: `dockerd did not come up: ${error instanceof Error ? error.message : String(error)} (see ${logFile})`,
    };
  }
  return { ok: true };
}

/**
 * The compose command: the v2 plugin (`docker compose`) when present, else docker-compose (1.29, Debian's
 * package, installed here when missing). Both run infra/compose/compose.yaml, `--scale` and `deploy.replicas`.
 */
export async function ensureCompose(log: Log): Promise<string[]> {
  if (await succeeds("docker", ["compose", "version"])) return ["docker", "compose"];
  if (findBinary("docker-compose") || (await aptInstall(["docker-compose"], log))) return ["docker-compose"];
  throw new Error(
    "neither `docker compose` nor docker-compose is available: install Docker's compose plugin or Debian's docker-compose",
  );
}
