// Builds Throng's three images, and stand-ins for PostgreSQL and Redis where their official images cannot be pulled.
import { existsSync, promises as fs } from "node:fs";
import path from "node:path";
import { runCommand } from "../local/child";
import { prefixedLog, type Log } from "../local/log";
import { imageExists } from "./base-image";
import { capture, succeeds } from "./shell";

export interface Images {
  app: string;
  web: string;
  agent: string;
  postgres: string;
  redis: string;
}

export const THRONG_IMAGES = {
  app: "throng-app:test-deploy",
  web: "throng-web:test-deploy",
  agent: "throng-agent:test-deploy",
};
const OFFICIAL = { postgres: "postgres:15-bookworm", redis: "redis:7-bookworm" };
const STAND_INS = { postgres: "throng-postgres-stand-in:15", redis: "throng-redis-stand-in:7" };

/** `docker build --network host` (npm and apt inside the build reach their registries through the host). */
async function build(root: string, dockerfile: string, tag: string, base: string, log: Log): Promise<void> {
  const started = Date.now();
  log(`docker build ${tag} (infra/docker/${dockerfile})`);
  await runCommand({
    name: `docker build ${tag}`,
    command: "nice",
    args: [
      "-n",
      "10",
      "docker",
      "build",
      "--network",
      "host",
      "--build-arg",
      `BASE=${base}`,
      "-f",
      `infra/docker/${dockerfile}`,
      "-t",
      tag,
      ".",
    ],
    cwd: root,
    // BuildKit where the client has it; Docker 20.10 from Debian has not, and the classic builder does the same here.
    env: { ...process.env, DOCKER_BUILDKIT: process.env.DOCKER_BUILDKIT ?? "0" },
    log: process.env.THRONG_DEPLOY_VERBOSE ? prefixedLog("build") : undefined,
  });
  log(`built ${tag} in ${Math.round((Date.now() - started) / 1000)} s`);
}

/** The official image when present or pullable; else the stand-in, built (once, cached by tag) from `base`. */
async function serviceImage(root: string, service: "postgres" | "redis", base: string, log: Log): Promise<string> {
  const official = OFFICIAL[service];
  if ((await imageExists(official)) || (await succeeds("docker", ["pull", "--quiet", official]))) return official;
  const standIn = STAND_INS[service];
  if (!(await imageExists(standIn))) {
    log(`${official} cannot be pulled here: building ${standIn} from Debian's packages instead`);
    await build(root, `${service}-stand-in.Dockerfile`, standIn, base, log);
  } else log(`${official} cannot be pulled here: using ${standIn} (Debian's ${service}, built earlier)`);
  return standIn;
}

/** Debian's bundle of the CAs the host trusts, its own additions included. */
const SYSTEM_CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt";

/**
 * The host's CA certificates (NODE_EXTRA_CA_CERTS, else the system bundle: on a network that intercepts TLS
 * its CA is there) for npm inside the build stages (infra/docker/build-ca/README.md); Node adds them to its
 * own roots, so an ordinary network loses nothing. Returns the function that removes them again.
 */
async function lendHostCaCertificates(root: string, log: Log): Promise<() => Promise<void>> {
  const source = process.env.NODE_EXTRA_CA_CERTS || (existsSync(SYSTEM_CA_BUNDLE) ? SYSTEM_CA_BUNDLE : undefined);
  if (!source) return async () => undefined;
  const copy = path.join(root, "infra/docker/build-ca/host.crt");
  await fs.copyFile(source, copy);
  log(`npm in the builds trusts the host's CA certificates too (${source})`);
  return () => fs.rm(copy, { force: true });
}

export async function buildImages(root: string, base: string, log: Log): Promise<Images> {
  const returnCertificates = await lendHostCaCertificates(root, log);
  try {
    // One after another: on two cores parallel builds only fight; the shared deps stage is built once and reused.
    await build(root, "app.Dockerfile", THRONG_IMAGES.app, base, log);
    await build(root, "agent.Dockerfile", THRONG_IMAGES.agent, base, log);
    await build(root, "web.Dockerfile", THRONG_IMAGES.web, base, log);
  } finally {
    await returnCertificates();
  }
  // The images these builds replaced (untagged now, labelled by our Dockerfiles); the build stages' cache stays.
  await capture("docker", [
    "image",
    "prune",
    "--force",
    "--filter",
    "label=org.opencontainers.image.vendor=Throng",
  ]).catch(() => undefined);
  const postgres = await serviceImage(root, "postgres", base, log);
  const redis = await serviceImage(root, "redis", base, log);
  return { ...THRONG_IMAGES, postgres, redis };
}
