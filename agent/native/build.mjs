// Builds the native I/O addon (throng_io.c) into agent/dist/throng-io.node with the machine's C compiler and the
// headers of the Node that runs this script. No node-gyp: an addon needs no link step against Node on Linux.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
export const addonPath = join(here, "..", "dist", "throng-io.node");

/** Compiles the addon; returns undefined when built, or why it could not be (the agent then uses Node's sockets). */
export function buildNativeIo() {
  if (process.platform !== "linux") return `the native I/O path is Linux-only (this is ${process.platform})`;
  const headers = [join(dirname(dirname(process.execPath)), "include", "node"), "/usr/include/node", "/usr/local/include/node"].find((dir) => existsSync(join(dir, "node_api.h")));
  if (!headers) return "Node's C headers (node_api.h) were not found next to this node or in /usr/include/node";
  const source = join(here, "throng_io.c");
  // Up to date: leave the file alone, since running agents (and parallel tests) may have it loaded.
  if (existsSync(addonPath) && statSync(addonPath).mtimeMs >= statSync(source).mtimeMs) return undefined;
  mkdirSync(dirname(addonPath), { recursive: true });
  const compiler = process.env.CC ?? "cc";
  // Compiled beside it and renamed over it, so a process loading the addon never sees half a file.
  const partial = `${addonPath}.${process.pid}.tmp`;
  try {
    execFileSync(compiler, ["-O2", "-Wall", "-Wextra", "-Werror", "-shared", "-fPIC", `-I${headers}`, "-o", partial, source], { stdio: ["ignore", "pipe", "pipe"] });
    renameSync(partial, addonPath);
  } catch (cause) {
    const output = `${cause.stderr ?? ""}`.trim() || cause.message;
    return `${compiler} failed: ${output}`;
  }
  return undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const failure = buildNativeIo();
  if (failure) {
    console.error(`native I/O not built: ${failure}`);
    process.exit(1);
  }
  console.log(`built ${addonPath}`);
}
