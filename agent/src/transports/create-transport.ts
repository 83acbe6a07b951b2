import type { Target } from "@throng/protocol/plan";
import { tcpTransport } from "./tcp";
import type { Transport } from "./transport";
import { udpTransport } from "./udp";
import { webSocketTransport } from "./websocket";

/** The transport for a plan's target. */
export function createTransport(target: Target): Transport {
  switch (target.protocol) {
    case "websocket":
      return webSocketTransport(target);
    case "tcp":
      return tcpTransport(target);
    case "udp":
      return udpTransport(target);
  }
}
