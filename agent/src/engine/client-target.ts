import type { Target } from "@throng/protocol/plan";
import { fillText } from "../scenarios/http-step";
import type { ScenarioContext } from "../scenarios/scenario";
import { createTransport } from "../transports/create-transport";

/**
 * When a WebSocket target's url or headers use {{client}} or {{vars.NAME}} (a ticket or token from the client's
 * http steps): the transport to each client's own target. Undefined otherwise, so every other target keeps its
 * one transport built once per shard and connects cost nothing more. A variable is URL-encoded in the url.
 */
export function clientTargets(target: Target): ScenarioContext["transportFor"] {
  if (target.protocol !== "websocket") return undefined;
  const headers = Object.entries(target.headers ?? {});
  if (!target.url.includes("{{") && !headers.some(([, value]) => value.includes("{{"))) return undefined;
  return (fields, vars) =>
    createTransport({
      ...target,
      url: fillText(target.url, fields, vars, encodeURIComponent),
      ...(target.headers
        ? { headers: Object.fromEntries(headers.map(([name, value]) => [name, fillText(value, fields, vars)])) }
        : {}),
    });
}
