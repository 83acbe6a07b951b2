import os from "node:os";
import type { HostInfo } from "@throng/protocol/agent";

/** What the agent tells the server about its machine in `hello`, trimmed to the schema's limits. */
export function hostInfo(): HostInfo {
  return {
    hostname: (os.hostname() || "unknown").slice(0, 255),
    os: `${os.type()} ${os.release()}`.slice(0, 100),
    arch: os.arch().slice(0, 50),
    cores: Math.max(1, os.availableParallelism()),
    memoryBytes: os.totalmem(),
  };
}
