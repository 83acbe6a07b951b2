import { readFile, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { FastifyInstance } from "fastify";
import { ThrongError } from "@throng/protocol/errors";
import type { RouteDoc } from "../http/openapi";
import { packAgent, type AgentPackageFile } from "./agent-package";

const BUNDLE_MISSING = "The agent bundle is not built on this server: run `npm run build -w @throng/agent`";

/** The native I/O addon's name for this server's platform: a rig downloads it only when its own platform matches. */
export const NATIVE_IO_FILE = `throng-io-${process.platform}-${process.arch}.node`;

/** The engine processes' own bundle beside the agent's (agent/src/engine/engine-main.ts): smaller than the CLI's per engine. */
export const ENGINE_FILE = "throng-engine.mjs";

/**
 * GET /agent/install.sh, GET /agent/throng-agent.mjs, its engine bundle and the native I/O addon beside it: a rig installs the agent
 * from the API it will dial, with nothing but Node and curl (`curl -fsSL <api>/agent/install.sh | sh -s -- --token ...`).
 * GET /agent/throng-agent.tgz is the same agent as an npm package, for `npx --yes <api>/agent/throng-agent.tgz connect ...`.
 */
export async function agentInstallRoutes(
  app: FastifyInstance,
  deps: { apiPublicUrl: string; agentBundlePath: string },
) {
  const agentPackage = packageCache(deps.agentBundlePath);
  app.get(
    "/agent/throng-agent.tgz",
    {
      config: {
        doc: {
          summary: "The agent as an npm package (npx installs it from this URL)",
          access: "public",
          produces: "application/gzip",
          errors: [503],
        },
      },
    },
    async (_request, reply) => {
      return reply
        .type("application/gzip")
        .header("cache-control", "no-cache")
        .send(await agentPackage());
    },
  );

  const besideBundle = (name: string) => join(dirname(deps.agentBundlePath), name);
  builtFileRoute(app, "/agent/throng-agent.mjs", "The one-file agent", {
    path: deps.agentBundlePath,
    produces: "text/javascript",
    missing: BUNDLE_MISSING,
  });
  builtFileRoute(app, `/agent/${ENGINE_FILE}`, "The agent's engine bundle (what each engine process runs)", {
    path: besideBundle(ENGINE_FILE),
    produces: "text/javascript",
    missing: `${BUNDLE_MISSING}; agents run their engines from the agent bundle meanwhile`,
  });
  builtFileRoute(app, `/agent/${NATIVE_IO_FILE}`, "The agent's native I/O addon for this server's platform", {
    path: besideBundle("throng-io.node"),
    produces: "application/octet-stream",
    missing:
      "The agent's native I/O addon is not built on this server: run `npm run build -w @throng/agent` (needs cc); agents use Node's sockets meanwhile",
  });

  app.get(
    "/agent/install.sh",
    { config: { doc: { summary: "The agent installer script", access: "public", produces: "text/x-shellscript" } } },
    async (_request, reply) => {
      return reply
        .type("text/x-shellscript; charset=utf-8")
        .header("cache-control", "no-cache")
        .send(installScript(deps.apiPublicUrl));
    },
  );
}

/** A file the agent's build leaves on disk: where it is, its media type, and what to do when it is not built. */
interface BuiltFile {
  path: string;
  produces: string;
  missing: string;
}

/** Serves a built file as it is on disk, revalidated on each download (a rebuild must reach the rig); 503 when missing. */
function builtFileRoute(app: FastifyInstance, url: string, summary: string, file: BuiltFile) {
  const doc: RouteDoc = { summary, access: "public", produces: file.produces, errors: [503] };
  // Scripts are sent as UTF-8 text; a binary addon as it is.
  const type = file.produces.startsWith("text/") ? `${file.produces}; charset=utf-8` : file.produces;
  app.get(url, { config: { doc } }, async (_request, reply) => {
    let content: Buffer;
    try {
      content = await readFile(file.path);
    } catch {
      throw new ThrongError("unavailable", file.missing);
    }
    return reply.type(type).header("cache-control", "no-cache").send(content);
  });
}

async function readPackageFile(path: string): Promise<AgentPackageFile | null> {
  try {
    const [content, info] = await Promise.all([readFile(path), stat(path)]);
    return { name: path, content, mtime: info.mtime };
  } catch {
    return null;
  }
}

/** The package is packed once per build of the bundle (the bundle's mtime and size say when it was rebuilt). */
function packageCache(bundlePath: string): () => Promise<Buffer> {
  let cached: { key: string; tgz: Buffer } | null = null;
  return async () => {
    const bundle = await readPackageFile(bundlePath);
    if (!bundle) throw new ThrongError("unavailable", BUNDLE_MISSING);
    const key = `${bundle.mtime.getTime()}:${bundle.content.length}`;
    if (cached?.key !== key) {
      const [engine, addon] = await Promise.all([
        readPackageFile(join(dirname(bundlePath), ENGINE_FILE)),
        readPackageFile(join(dirname(bundlePath), "throng-io.node")),
      ]);
      cached = { key, tgz: await packAgent(bundle, addon, engine) };
    }
    return cached.tgz;
  };
}

/** The script is plain POSIX sh: it downloads the one-file agent next to the user's home and starts it. */
export function installScript(server: string): string {
  return `#!/bin/sh
# Throng agent installer, served by ${server}
# Usage: curl -fsSL ${server}/agent/install.sh | sh -s -- --token <enrolment token> [--label key=value ...]
set -eu
SERVER='${server.replace(/'/g, "")}'
if ! command -v node >/dev/null 2>&1; then
  echo "throng: Node.js 20 or newer is needed on this rig: install it (e.g. apt-get install nodejs), then run this again" >&2
  exit 1
fi
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 20 ]; then
  echo "throng: Node.js $(node -v) is too old; the agent needs Node.js 20 or newer" >&2
  exit 1
fi
dir="\${THRONG_HOME:-$HOME/.throng}"
mkdir -p "$dir"
echo "throng: downloading the agent from $SERVER into $dir" >&2
curl -fsSL "$SERVER/agent/throng-agent.mjs" -o "$dir/throng-agent.mjs.tmp"
mv "$dir/throng-agent.mjs.tmp" "$dir/throng-agent.mjs"
# What each engine process runs; without it the engines run the agent bundle (more memory each).
if curl -fsS "$SERVER/agent/${ENGINE_FILE}" -o "$dir/${ENGINE_FILE}.tmp" 2>/dev/null; then
  mv "$dir/${ENGINE_FILE}.tmp" "$dir/${ENGINE_FILE}"
else
  rm -f "$dir/${ENGINE_FILE}.tmp" "$dir/${ENGINE_FILE}"
fi
# The native I/O addon, when the server has one built for this rig's platform; without it the agent uses Node's sockets.
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform=linux-x64 ;;
  Linux-aarch64) platform=linux-arm64 ;;
  *) platform=none ;;
esac
if [ "$platform" != none ] && curl -fsS "$SERVER/agent/throng-io-$platform.node" -o "$dir/throng-io.node.tmp" 2>/dev/null; then
  mv "$dir/throng-io.node.tmp" "$dir/throng-io.node"
else
  rm -f "$dir/throng-io.node.tmp" "$dir/throng-io.node"
  echo "throng: no native I/O addon for this rig from $SERVER; the agent uses Node's sockets" >&2
fi
exec node "$dir/throng-agent.mjs" connect --server "$SERVER" --config "$dir/agent.json" "$@"
`;
}
