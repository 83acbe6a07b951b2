import { existsSync } from "node:fs";
import { aptInstall } from "./apt";
import type { Log } from "./log";

/** The headers the agent's kernel path for network cohorts is built from (agent/native/build.mjs's buildNetworkQueue). */
const HEADERS = [
  "/usr/include/libnetfilter_queue/libnetfilter_queue.h",
  "/usr/include/libnftnl/table.h",
  "/usr/include/libmnl/libmnl.h",
];
const PACKAGES = ["libnetfilter-queue-dev", "libnftnl-dev", "libmnl-dev"];

/**
 * Installs libnetfilter_queue's and libnftnl's headers before the agent is built, where we are root on Linux, so the
 * kernel path of TCP cohorts is built and its tests run (in CI too); elsewhere those tests say they were skipped.
 */
export async function ensureNetworkQueueHeaders(log: Log): Promise<void> {
  if (process.platform !== "linux" || HEADERS.every((header) => existsSync(header))) return;
  if (!(await aptInstall(PACKAGES, log)))
    log(
      `the agent's kernel path for TCP cohorts needs ${PACKAGES.join(" ")} (apt-get install): its tests will be skipped`,
    );
}
