import dgram from "node:dgram";
import net from "node:net";
import { ruleMatches } from "@throng/protocol/target-rules";

/** The error a script's socket gets for a destination off the agent's --allow-target list. */
export class RefusedTargetError extends Error {
  readonly code = "ETHRONG_TARGET_REFUSED";
}

function refusal(host: string, port: number | string, allowList: readonly string[]): RefusedTargetError {
  return new RefusedTargetError(
    `connection to ${host}:${port} refused: it is not on this agent's --allow-target list (${allowList.join(", ")})`,
  );
}

/** Whether host:port is on the list; hosts are compared as the script's library wrote them, like a plan's target. */
function allowed(allowList: readonly string[], host: string, port: number): boolean {
  const target = { host: host.replace(/^\[|\]$/g, "").toLowerCase(), port };
  return allowList.some((rule) => ruleMatches(rule, target));
}

/** The destination of a net.Socket#connect call, in any of its forms (options, port + host, path, or Node's own normalized array). */
function connectDestination(args: unknown[]): { host: string; port: number } | { path: string } | undefined {
  const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
  if (first !== null && typeof first === "object") {
    const options = first as { host?: unknown; port?: unknown; path?: unknown };
    if (typeof options.path === "string") return { path: options.path };
    return {
      host: typeof options.host === "string" && options.host ? options.host : "localhost",
      port: Number(options.port),
    };
  }
  if (typeof first === "number" || (typeof first === "string" && /^\d+$/.test(first))) {
    return { host: typeof args[1] === "string" && args[1] ? args[1] : "localhost", port: Number(first) };
  }
  if (typeof first === "string") return { path: first };
  return undefined;
}

/** The destination of a dgram.Socket#send call on an unconnected socket: (msg, [offset, length,] port, address, cb). */
function sendDestination(args: unknown[]): { host: string; port: number } {
  const explicit = typeof args[1] === "number" && typeof args[2] === "number" && args.length > 4;
  const port = Number(explicit ? args[3] : args[1]);
  const address = explicit ? args[4] : args[2];
  return { host: typeof address === "string" && address ? address : "localhost", port };
}

/**
 * Inside a script's worker, before the script loads: every TCP connect (net, tls, http, https, ws and the npm clients
 * built on them) and every UDP connect or send to a destination off the list fails, naming it and the flag. A connect
 * fails as Node's own do (an 'error' event on the socket); a UDP send or connect throws. No list: nothing is wrapped.
 * A guard against mistakes, not a sandbox: native addons, child processes and a script that restores these
 * prototypes pass it by.
 */
export function installSocketGuard(allowList: readonly string[]): void {
  if (allowList.length === 0) return;
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const to = connectDestination(args);
    const refused =
      to === undefined
        ? undefined
        : "path" in to
          ? refusal(to.path, "(unix socket)", allowList)
          : allowed(allowList, to.host, to.port)
            ? undefined
            : refusal(to.host, to.port, allowList);
    if (!refused) return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
    process.nextTick(() => this.destroy(refused));
    return this;
  } as typeof connect;

  const udpConnect = dgram.Socket.prototype.connect;
  dgram.Socket.prototype.connect = function guardedUdpConnect(this: dgram.Socket, port: number, ...rest: unknown[]) {
    const host = typeof rest[0] === "string" && rest[0] ? rest[0] : "localhost";
    if (!allowed(allowList, host, Number(port))) throw refusal(host, port, allowList);
    return (udpConnect as (...a: unknown[]) => void).apply(this, [port, ...rest]);
  } as typeof udpConnect;

  const send = dgram.Socket.prototype.send;
  dgram.Socket.prototype.send = function guardedSend(this: dgram.Socket, ...args: unknown[]) {
    let connected = true;
    try {
      this.remoteAddress();
    } catch {
      connected = false;
    }
    if (!connected) {
      const to = sendDestination(args);
      if (!allowed(allowList, to.host, to.port)) throw refusal(to.host, to.port, allowList);
    }
    return (send as (...a: unknown[]) => void).apply(this, args);
  } as typeof send;
}
