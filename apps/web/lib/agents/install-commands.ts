import type { EnrolmentTokenCreated } from "@throng/protocol/api";

/** One way to install and start an agent on a rig, ready to paste. */
export interface InstallMethod {
  id: "script" | "npx" | "node" | "container" | "kubernetes";
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
 * Neither image nor chart is on a public registry: both are built from a Throng checkout (infra/docker, infra/helm),
 * so the container and Kubernetes commands say so rather than naming an image nobody can pull.
 */
export const AGENT_IMAGE = "throng-agent";
export const AGENT_IMAGE_BUILD = `docker build --network host -f infra/docker/agent.Dockerfile -t ${AGENT_IMAGE} .`;

/** What the agent's owner lets it run, as flags of `connect` (the agent says them to the server in its hello). */
export interface InstallPermissions {
  /** `--allow-scripts`: run script plans (the plan's bundle is fetched from this server). */
  allowScripts: boolean;
  /** `--allow-target`: only load these host, host:port or *.domain rules; empty: whatever a plan says. */
  allowTargets: string[];
}

export const NO_PERMISSIONS: InstallPermissions = { allowScripts: false, allowTargets: [] };

/** The rules a user typed (comma or space separated), as the agent reads them. */
export function parseAllowTargets(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((rule) => rule.trim())
    .filter(Boolean);
}

/** The permissions as `connect` flags, with a leading space; empty when none is asked. */
function connectFlags({ allowScripts, allowTargets }: InstallPermissions): string {
  return (
    (allowScripts ? " --allow-scripts" : "") +
    (allowTargets.length ? ` --allow-target ${shellQuote(allowTargets.join(","))}` : "")
  );
}

/** The same permissions as the Helm chart's values (agents.allowScripts, agents.allowTargets). */
function helmFlags({ allowScripts, allowTargets }: InstallPermissions): string {
  return (
    (allowScripts ? " --set agents.allowScripts=true" : "") +
    (allowTargets.length ? ` --set ${shellQuote(`agents.allowTargets={${allowTargets.join(",")}}`)}` : "")
  );
}

/** Every install variant for a freshly created token; null when the API's answer carries no server address. */
export function installMethods(
  created: EnrolmentTokenCreated,
  permissions: InstallPermissions = NO_PERMISSIONS,
): InstallMethod[] | null {
  const server = serverUrlOf(created);
  if (!server) return null;
  const token = shellQuote(created.token);
  const url = shellQuote(server);
  const flags = connectFlags(permissions);
  return [
    {
      id: "script",
      label: "Install script",
      note: "Needs Node.js 20+ and curl. Downloads the one-file agent from this server into ~/.throng and starts it.",
      text: `curl -fsSL ${url}/agent/install.sh | sh -s -- --token ${token}${flags}`,
    },
    {
      id: "npx",
      label: "npx",
      note: "Needs Node.js 20+ and npm. npx installs the agent package this server serves (no npm registry account or access needed) and starts it.",
      text: created.commands.npx + flags,
    },
    {
      id: "node",
      label: "Throng checkout",
      note: "From a clone of the Throng repository, after npm start has built the agent.",
      text: created.commands.node + flags,
    },
    {
      id: "container",
      label: "Container",
      note: `Needs Docker and the agent image, built once in a clone of the Throng repository: ${AGENT_IMAGE_BUILD} (no public image yet). Host networking: the agent loads targets as the host would. It keeps its credential in the container, so a restart is the same agent; a new container enrols again.`,
      text: `docker run -d --name throng-agent --restart unless-stopped --network host ${AGENT_IMAGE} connect --server ${url} --token ${token}${flags}`,
    },
    {
      id: "kubernetes",
      label: "Kubernetes",
      note: `Needs helm and, in a clone of the Throng repository, the agent image (${AGENT_IMAGE_BUILD}) pushed where your cluster pulls from: add --set image.agent.repository=<registry>/${AGENT_IMAGE} --set image.agent.tag=<tag>. Installs agents only (infra/helm/throng/README.md); scale with kubectl scale or agents.autoscaling.`,
      text: `helm install throng-agents infra/helm/throng --set controlPlane.enabled=false --set agents.enabled=true --set agents.replicas=2 --set agents.server=${url} --set agents.enrolment.token=${token}${helmFlags(permissions)}`,
    },
  ];
}
