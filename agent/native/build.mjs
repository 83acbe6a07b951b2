// Builds the native I/O addon (throng_io.c) into agent/dist/throng-io.node with the machine's C compiler and the
// headers of the Node that runs this script. No node-gyp: an addon needs no link step against Node on Linux.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const addonPath = join(here, "..", "dist", "throng-io.node");

/** The network cohorts' kernel path (throng_netq.c, netq_tables.c, netq_diag.c): dist/throng-netq.node. */
export const netqAddonPath = join(here, "..", "dist", "throng-netq.node");
/** What the kernel path links against, and the Debian packages with their headers. */
const NETQ_HEADERS = ["libnetfilter_queue/libnetfilter_queue.h", "libnftnl/table.h", "libmnl/libmnl.h"];
export const NETQ_PACKAGES = "libnetfilter-queue-dev libnftnl-dev libmnl-dev";

/** Node's C headers, or undefined. */
function nodeHeaders() {
  return [
    join(dirname(dirname(process.execPath)), "include", "node"),
    "/usr/include/node",
    "/usr/local/include/node",
  ].find((dir) => existsSync(join(dir, "node_api.h")));
}

/**
 * Compiles `sources` into `output` unless it is newer than each of them and of `inputs` (headers they include);
 * returns undefined when built, or why it could not be.
 */
function compileAddon(sources, output, libraries = [], inputs = []) {
  if (process.platform !== "linux") return `native addons are Linux-only (this is ${process.platform})`;
  const headers = nodeHeaders();
  if (!headers) return "Node's C headers (node_api.h) were not found next to this node or in /usr/include/node";
  // Up to date: leave the file alone, since running agents (and parallel tests) may have it loaded.
  if (
    existsSync(output) &&
    [...sources, ...inputs].every((input) => statSync(output).mtimeMs >= statSync(input).mtimeMs)
  )
    return undefined;
  mkdirSync(dirname(output), { recursive: true });
  const compiler = process.env.CC ?? "cc";
  // Compiled beside it and renamed over it, so a process loading the addon never sees half a file.
  const partial = `${output}.${process.pid}.tmp`;
  try {
    execFileSync(
      compiler,
      [
        "-O2",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-shared",
        "-fPIC",
        `-I${headers}`,
        "-o",
        partial,
        ...sources,
        ...libraries,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    renameSync(partial, output);
  } catch (cause) {
    const output = `${cause.stderr ?? ""}`.trim() || cause.message;
    return `${compiler} failed: ${output}`;
  }
  return undefined;
}

/** Compiles the addon; returns undefined when built, or why it could not be (the agent then uses Node's sockets). */
export function buildNativeIo() {
  return compileAddon([join(here, "throng_io.c")], addonPath);
}

/**
 * Compiles the kernel path of network cohorts (NFQUEUE and nf_tables); returns undefined when built, or why it could
 * not be (the agent then applies a stream cohort's delay above TCP, and refuses its loss).
 */
export function buildNetworkQueue() {
  const missing = NETQ_HEADERS.filter(
    (header) => !["/usr/include", "/usr/local/include"].some((dir) => existsSync(join(dir, header))),
  );
  if (missing.length) return `${missing.join(", ")} not found: apt-get install ${NETQ_PACKAGES}`;
  const sources = ["throng_netq.c", "netq_tables.c", "netq_diag.c"].map((file) => join(here, file));
  return compileAddon(
    sources,
    netqAddonPath,
    ["-lnetfilter_queue", "-lnfnetlink", "-lnftnl", "-lmnl", "-lpthread"],
    [join(here, "netq.h")],
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const failure = buildNativeIo();
  if (failure) {
    console.error(`native I/O not built: ${failure}`);
    process.exit(1);
  }
  console.log(`built ${addonPath}`);
  const netqFailure = buildNetworkQueue();
  if (netqFailure) console.error(`network queue not built: ${netqFailure}`);
  else console.log(`built ${netqAddonPath}`);
}
