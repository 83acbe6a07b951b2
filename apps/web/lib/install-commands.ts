import type { EnrolmentTokenCreated } from "@throng/protocol/api";

/** One way to install and start an agent on a rig, ready to paste. */
export interface InstallMethod {
  id: "script" | "npx" | "container" | "kubernetes" | "node";
  label: string;
  /** What the user needs on the rig, and anything to know before pasting. */
  note: string;
  /** Shell for the command methods, YAML for Kubernetes. */
  language: "sh" | "yaml";
  text: string;
}

/** The API address agents dial, as the API wrote it into its own command (`--server <url>`). */
export function serverUrlOf(created: Pick<EnrolmentTokenCreated, "commands">): string | null {
  const match = /--server\s+(\S+)/.exec(created.commands.node) ?? /--server\s+(\S+)/.exec(created.commands.npx);
  return match?.[1]?.replace(/\/+$/, "") ?? null;
}

/** True when agents elsewhere (a container without host networking, a pod) cannot reach the address. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === "localhost" || host === "[::1]" || host === "::1" || /^127\./.test(host);
  } catch {
    return false;
  }
}

/** Single quotes for the shell, so a token or URL is passed as one word whatever it holds. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_\-.:/=@+,]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

const CREDENTIAL_DIR = "/root/.config/throng";

function kubernetesManifest(server: string, token: string): string {
  return `apiVersion: v1
kind: Secret
metadata:
  name: throng-agent
type: Opaque
stringData:
  token: ${JSON.stringify(token)}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: throng-agent
  labels: { app: throng-agent }
spec:
  replicas: 1
  selector:
    matchLabels: { app: throng-agent }
  template:
    metadata:
      labels: { app: throng-agent }
    spec:
      containers:
        - name: agent
          image: node:20
          command: ["npx", "-y", "throng-agent", "connect"]
          args: ["--server", ${JSON.stringify(server)}, "--token", "$(THRONG_TOKEN)", "--label", "runtime=kubernetes"]
          env:
            - name: THRONG_TOKEN
              valueFrom:
                secretKeyRef: { name: throng-agent, key: token }
          resources:
            requests: { cpu: "1", memory: 512Mi }
`;
}

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
      language: "sh",
      text: `curl -fsSL ${url}/agent/install.sh | sh -s -- --token ${token}`,
    },
    {
      id: "npx",
      label: "npx",
      note: "Needs Node.js 20+ and npm.",
      language: "sh",
      text: created.commands.npx,
    },
    {
      id: "container",
      label: "Container",
      note: "Needs Docker. Host networking lets the agent reach targets on the rig; the volume keeps the agent's credential across restarts.",
      language: "sh",
      text: `docker run -d --name throng-agent --restart unless-stopped --network host -v throng-agent:${CREDENTIAL_DIR} node:20 npx -y throng-agent connect --server ${url} --token ${token}`,
    },
    {
      id: "kubernetes",
      label: "Kubernetes",
      note: "kubectl apply -f this file. Each pod enrols with the token when it starts: use a reusable token for more than one replica or for restarts.",
      language: "yaml",
      text: kubernetesManifest(server, created.token),
    },
    {
      id: "node",
      label: "Throng checkout",
      note: "From a clone of the Throng repository, after npm start has built the agent.",
      language: "sh",
      text: created.commands.node,
    },
  ];
}
