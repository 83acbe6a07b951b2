import type { PlanSpec } from "./plan";

// Target allow-list rules, shared by the server (org allow-list) and the agent (its own --allow-target list).

/** host and port of a WebSocket target URL; ws:// defaults to 80, wss:// to 443. */
export function targetAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url);
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "wss:" ? 443 : 80;
  return { host: parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port };
}

/** Where a plan sends its load, whatever the protocol. */
export function planTargetAddress(target: PlanSpec["target"]): { host: string; port: number } {
  if (target.protocol === "websocket") return targetAddress(target.url);
  return { host: target.host.replace(/^\[|\]$/g, "").toLowerCase(), port: target.port };
}

/** host and port of a session http step's URL, as written (the schema allows placeholders only after the host). */
export function httpStepAddress(url: string): { host: string; port: number } {
  const parsed = new URL(url.replace(/\{\{[^}]*\}\}/g, "x"));
  const port = parsed.port ? Number(parsed.port) : parsed.protocol === "https:" ? 443 : 80;
  return { host: parsed.hostname.replace(/^\[|\]$/g, "").toLowerCase(), port };
}

/** Every http step of a plan's session with where it sends its request: these must pass an allow-list as the target does. */
export function httpStepAddresses(scenario: PlanSpec["scenario"]): { index: number; host: string; port: number }[] {
  const steps = "session" in scenario ? (scenario.session ?? []) : [];
  return steps.flatMap((step, index) => (step.kind === "http" ? [{ index, ...httpStepAddress(step.url) }] : []));
}

/** One rule: `host`, `host:port`, `*.domain` (any subdomain) or `[ipv6]:port`. */
export function ruleMatches(rule: string, target: { host: string; port: number }): boolean {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(rule.trim().toLowerCase());
  if (!match) return false;
  const host = match[1]!.replace(/^\[|\]$/g, "");
  if (match[2] && Number(match[2]) !== target.port) return false;
  if (host.startsWith("*.")) return target.host.endsWith(host.slice(1));
  return host === target.host;
}
