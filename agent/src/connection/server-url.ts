import { AGENT_GATEWAY_PATH } from "@throng/protocol/agent";
import { ThrongError } from "@throng/protocol/errors";

const EXAMPLE = "e.g. http://localhost:4000";

function parseServer(server: string): URL {
  let url: URL;
  try {
    url = new URL(server.trim());
  } catch {
    throw new ThrongError("validation_failed", `--server "${server}" is not a URL; pass the API's address, ${EXAMPLE}`);
  }
  if (!["http:", "https:", "ws:", "wss:"].includes(url.protocol)) {
    throw new ThrongError("validation_failed", `--server must be an http(s) URL of the Throng API, ${EXAMPLE}`);
  }
  return url;
}

/** The API's address in one spelling (http(s), no trailing slash), used to key stored credentials. */
export function normaliseServer(server: string): string {
  const url = parseServer(server);
  const protocol = url.protocol === "wss:" ? "https:" : url.protocol === "ws:" ? "http:" : url.protocol;
  const path = url.pathname.replace(/\/+$/, "");
  return `${protocol}//${url.host}${path}`;
}

/** The agent gateway's WebSocket address: http→ws, https→wss, plus AGENT_GATEWAY_PATH. */
export function gatewayUrl(server: string): string {
  const base = normaliseServer(server);
  return `${base.replace(/^http/, "ws")}${AGENT_GATEWAY_PATH}`;
}
