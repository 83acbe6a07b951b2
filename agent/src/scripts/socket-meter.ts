import net from "node:net";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import { causeOf } from "../transports/transport";

/**
 * Inside a script's worker: every TCP connection the script opens (net, tls, http, ws and the npm clients built on
 * them) counts like the engine's own: opened with its connect time, closed by who closed it, and the open-connections
 * gauge. So a script run shows its connections, and the verdict's "clients connected" check (issue 16) reads real
 * sockets, not a script's say-so. A connect that fails is not counted here: the script sees it too and reports it
 * (ctx.error, or a throw counted as script-error), and counting both would make one failure two.
 */
export function installSocketMeter(metrics: ScenarioMetrics): void {
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function meteredConnect(this: net.Socket, ...args: unknown[]) {
    // A socket Node reconnects internally (a net.connect retried over another address) is one connection.
    if (!(this as { throngMetered?: boolean }).throngMetered) {
      (this as { throngMetered?: boolean }).throngMetered = true;
      const started = performance.now();
      let opened = false;
      let peerEnded = false;
      this.once("connect", () => {
        opened = true;
        metrics.connectionOpened(Math.round((performance.now() - started) * 1000));
      });
      this.once("end", () => (peerEnded = true));
      // No 'error' listener of its own: one would hide an error the script leaves unhandled (counted as script-error).
      this.once("close", () => {
        const failure = this.errored ?? undefined;
        if (!opened) return;
        metrics.connectionClosed(
          failure ? (causeOf(failure) === "reset" ? "reset" : "error") : peerEnded ? "server" : "agent",
        );
      });
    }
    return (connect as (...a: unknown[]) => net.Socket).apply(this, args);
  } as typeof connect;
}
