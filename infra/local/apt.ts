import { existsSync, promises as fs } from "node:fs";
import { findBinary, isRoot } from "./binaries";
import { runCommand } from "./child";
import type { Log } from "./log";

const policyFile = "/usr/sbin/policy-rc.d";
let listsUpdated = false; // One `apt-get update` per process is enough for several installs.

/**
 * Installs Debian packages when we are root and apt-get exists; returns false when we cannot, so the
 * caller can print its own "install X or set Y" message. Package scripts are kept from starting
 * their system services (policy-rc.d), which would otherwise take the default ports.
 */
export async function aptInstall(packages: string[], log: Log): Promise<boolean> {
  if (!isRoot() || !findBinary("apt-get")) return false;
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const wroteDenyPolicy = await denyServiceStarts();
  try {
    if (!listsUpdated) {
      log("running apt-get update");
      await runCommand({ name: "apt-get", command: "apt-get", args: ["update"], env });
      listsUpdated = true;
    }
    log(`running apt-get install -y ${packages.join(" ")}`);
    // Wait for another apt (a parallel install) instead of failing on its lock. Recommends stay on:
    // Chromium is tested with them (GL drivers, fonts), and that is what `apt-get install chromium` does.
    const args = ["-o", "DPkg::Lock::Timeout=300", "install", "-y", ...packages];
    await runCommand({ name: "apt-get", command: "apt-get", args, env });
    log(`installed ${packages.join(" ")}`);
    return true;
  } finally {
    if (wroteDenyPolicy) await fs.rm(policyFile, { force: true });
  }
}

async function denyServiceStarts(): Promise<boolean> {
  if (existsSync(policyFile)) return false;
  try {
    await fs.writeFile(policyFile, "#!/bin/sh\n# Written by throng infra/local during a package install.\nexit 101\n", {
      mode: 0o755,
    });
    return true;
  } catch {
    return false; // Not fatal: our servers use their own ports anyway.
  }
}
