import type { Target } from "@throng/protocol/plan";
import { kcpTransport, type KcpTransportOptions } from "./kcp-transport";
import { tcpTransport } from "./tcp";
import type { Transport } from "./transport";
import { udpTransport } from "./udp";
import { webSocketTransport } from "./websocket";

/** The transport for a plan's target; `kcp` gives a KCP target the engine's timer wheel and counters. */
export function createTransport(target: Target, options: { kcp?: KcpTransportOptions } = {}): Transport {
  switch (target.protocol) {
    case "websocket":
      return webSocketTransport(target);
    case "tcp":
      return tcpTransport(target);
    case "udp":
      return udpTransport(target);
    case "kcp":
      return kcpTransport(target, options.kcp);
  }
}

/** UDP and KCP: each client binds its own datagram socket, so the engine's TCP port allocator is not theirs. */
export function bindsOwnPorts(target: Target): boolean {
  return target.protocol === "udp" || target.protocol === "kcp";
}
