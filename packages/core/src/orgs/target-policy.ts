import { ThrongError } from "@throng/protocol/errors";
import type { OrgSettings } from "@throng/protocol/orgs";
import type { PlanSpec } from "@throng/protocol/plan";

/** host and port of a target URL; ws:// defaults to 80, wss:// to 443. */
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

/** One rule: `host`, `host:port`, `*.domain` (any subdomain) or `[ipv6]:port`. */
export function ruleMatches(rule: string, target: { host: string; port: number }): boolean {
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(rule.trim().toLowerCase());
  if (!match) return false;
  const host = match[1]!.replace(/^\[|\]$/g, "");
  if (match[2] && Number(match[2]) !== target.port) return false;
  if (host.startsWith("*.")) return target.host.endsWith(host.slice(1));
  return host === target.host;
}

/** Refuses a plan that leaves the org's allow-list or exceeds its caps, saying which and what to change. */
export function checkPlanAgainstSettings(spec: PlanSpec, settings: OrgSettings): void {
  const problems: { path: string; message: string }[] = [];
  if (settings.targetAllowList.length > 0) {
    const target = planTargetAddress(spec.target);
    if (!settings.targetAllowList.some((rule) => ruleMatches(rule, target))) {
      problems.push({
        path: spec.target.protocol === "websocket" ? "target.url" : "target.host",
        message: `${target.host}:${target.port} is not on this organisation's target allow-list (${settings.targetAllowList.join(", ")}); an admin can add it under Settings`,
      });
    }
  }
  if (spec.load.clients > settings.maxClients) {
    problems.push({ path: "load.clients", message: `exceeds this organisation's cap of ${settings.maxClients} clients` });
  }
  if (spec.load.durationSec > settings.maxDurationSec) {
    problems.push({ path: "load.durationSec", message: `exceeds this organisation's cap of ${settings.maxDurationSec} s` });
  }
  if (problems.length) {
    throw new ThrongError("forbidden", `The plan breaks this organisation's limits (${problems[0]!.path}: ${problems[0]!.message})`, problems);
  }
}
