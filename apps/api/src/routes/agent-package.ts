import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";
import { THRONG_VERSION } from "@throng/protocol/version";

/** One file of the agent's npm package, by its name inside the package. */
export interface AgentPackageFile {
  name: string;
  content: Buffer;
  mtime: Date;
  executable?: boolean;
}

/** The package's name and its one command: `npx <api>/agent/throng-agent.tgz connect ...` runs this bin. */
export const AGENT_PACKAGE_NAME = "throng-agent";
const BIN = "throng-agent.mjs";

/** package.json of the served package: a bin and no dependencies (the bundle holds them), so npx needs no registry. */
export function agentPackageJson(): string {
  const manifest = {
    name: AGENT_PACKAGE_NAME,
    version: THRONG_VERSION,
    description: "Throng load agent: generates load for a Throng server",
    type: "module",
    bin: { [AGENT_PACKAGE_NAME]: BIN },
    engines: { node: ">=20" },
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/**
 * The agent as npm's package format expects it (a gzip'd tar with every entry under `package/`), built from the
 * one-file bundle and, when built, its engine bundle and the native I/O addon beside it (a rig of another platform fails to load it and
 * uses Node's sockets, as the agent already does without it).
 */
export async function packAgent(
  bundle: AgentPackageFile,
  addon: AgentPackageFile | null,
  engine: AgentPackageFile | null = null,
): Promise<Buffer> {
  const files: AgentPackageFile[] = [
    { name: "package.json", content: Buffer.from(agentPackageJson()), mtime: bundle.mtime },
    { ...bundle, name: BIN, executable: true },
    ...(engine ? [{ ...engine, name: "throng-engine.mjs" }] : []),
    ...(addon ? [{ ...addon, name: "throng-io.node" }] : []),
  ];
  const tar = pack();
  for (const file of files) {
    tar.entry(
      {
        name: `package/${file.name}`,
        mode: file.executable ? 0o755 : 0o644,
        mtime: file.mtime,
        size: file.content.length,
      },
      file.content,
    );
  }
  tar.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of tar) chunks.push(Buffer.from(chunk as Uint8Array));
  return gzipSync(Buffer.concat(chunks));
}
