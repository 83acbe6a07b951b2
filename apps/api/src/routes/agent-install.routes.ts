import { readFile } from "node:fs/promises";
import type { FastifyInstance } from "fastify";
import { ThrongError } from "@throng/protocol/errors";

/**
 * GET /agent/install.sh and GET /agent/throng-agent.mjs: a rig installs the agent from the API it will
 * dial, with nothing but Node and curl (`curl -fsSL <api>/agent/install.sh | sh -s -- --token ...`).
 */
export async function agentInstallRoutes(app: FastifyInstance, deps: { apiPublicUrl: string; agentBundlePath: string }) {
  app.get("/agent/throng-agent.mjs", { config: { doc: { summary: "The one-file agent", access: "public" } } }, async (_request, reply) => {
    let bundle: Buffer;
    try {
      bundle = await readFile(deps.agentBundlePath);
    } catch {
      throw new ThrongError("unavailable", "The agent bundle is not built on this server: run `npm run build -w @throng/agent`");
    }
    return reply.type("text/javascript; charset=utf-8").header("cache-control", "no-cache").send(bundle);
  });

  app.get("/agent/install.sh", { config: { doc: { summary: "The agent installer script", access: "public" } } }, async (_request, reply) => {
    return reply.type("text/x-shellscript; charset=utf-8").header("cache-control", "no-cache").send(installScript(deps.apiPublicUrl));
  });
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
exec node "$dir/throng-agent.mjs" connect --server "$SERVER" --config "$dir/agent.json" "$@"
`;
}
