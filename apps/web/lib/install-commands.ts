import type { EnrolmentTokenCreated } from "@throng/protocol/api";

/** One way to install and start an agent on a rig, ready to paste. */
export interface InstallMethod {
  id: "script" | "npx" | "node";
  label: string;
  /** What the user needs on the rig, and anything to know before pasting. */
  note: string;
  text: string;
}

/** The API address agents dial, as the API wrote it into its own command (`--server <url>`). */
export function serverUrlOf(created: Pick<EnrolmentTokenCreated, "commands">): string | null {
  const match = /--server\s+(\S+)/.exec(created.commands.node) ?? /--server\s+(\S+)/.exec(created.commands.npx);
  return match?.[1]?.replace(/\/+$/, "") ?? null;
}

/** Single quotes for the shell, so a token or URL is passed as one word whatever it holds. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\-.:/=@+,]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * Why no container or Kubernetes command is offered: each would need an agent image and a Helm chart that are not
 * published yet (the self-hosting work builds them), and a command that cannot work must not be shown.
 */
export const UNAVAILABLE_METHODS =
  "Container image and Kubernetes chart: not published yet, so no command is shown for them. On a container or pod with Node.js 20+, the npx command works as it is.";

/** Every install variant for a freshly created token; null when the API's answer carries no server address. */
export function installMethods(created: EnrolmentTokenCreated): InstallMethod[] | null {
  const server = serverUrlOf(created);
  if (!server) return null;
  const token = shellQuote(created.token);
  const url = shellQuote(server);
  return [
    {
      id: "script",
      label: "Install script",
      note: "Needs Node.js 20+ and curl. Downloads the one-file agent from this server into ~/.throng and starts it.",
      text: `curl -fsSL ${url}/agent/install.sh | sh -s -- --token ${token}`,
    },
    {
      id: "npx",
      label: "npx",
      note: "Needs Node.js 20+ and npm. npx installs the agent package this server serves (no npm registry account or access needed) and starts it.",
      text: created.commands.npx,
    },
    {
      id: "node",
      label: "Throng checkout",
      note: "From a clone of the Throng repository, after npm start has built the agent.",
      text: created.commands.node,
    },
  ];
}
