import { execFile } from "node:child_process";
import { promisify } from "node:util";

const exec = promisify(execFile);
const ip = (...args: string[]) => exec("ip", args);

/** One rig: a network namespace joined to this machine by a veth pair on a private /30 nobody else sees. */
export interface Rig {
  name: string;
  /** The rig's own address (what the API sees) and this machine's end of the link. */
  address: string;
  gateway: string;
  /** Wraps a command so it runs inside the namespace. */
  command(argv: string[]): { command: string; args: string[] };
  /** Takes the rig's end of the link down: its packets go nowhere, nothing is refused or reset. */
  unplug(): Promise<void>;
  plug(): Promise<void>;
  remove(): Promise<void>;
}

const prefix = "thf-";

/** Whether this machine lets us make namespaces (root, iproute2, a kernel that allows it); the reason if not. */
export async function namespacesUnavailable(): Promise<string | undefined> {
  const probe = `${prefix}${process.pid}-probe`;
  try {
    await ip("netns", "add", probe);
    await ip("netns", "del", probe);
    return undefined;
  } catch (error) {
    return (error as Error).message.split("\n")[0];
  }
}

/** Namespaces left behind by a test process that was killed before its cleanup (their pid is gone). */
export async function removeStaleRigs(): Promise<void> {
  const { stdout } = await ip("netns", "list");
  for (const line of stdout.split("\n")) {
    const match = /^thf-(\d+)-\S+/.exec(line.trim());
    if (!match || isAlive(Number(match[1]))) continue;
    await ip("netns", "del", match[0]).catch(() => undefined);
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** A /30 in 10.200.0.0/16 that no interface here already uses (parallel test files pick their own). */
async function freeSubnet(): Promise<string> {
  const { stdout } = await ip("-o", "-4", "addr", "show");
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = `10.200.${1 + Math.floor(Math.random() * 254)}.${4 * Math.floor(Math.random() * 63)}`;
    const stem = base.slice(0, base.lastIndexOf("."));
    const last = Number(base.slice(base.lastIndexOf(".") + 1));
    const taken = [1, 2].some((i) => stdout.includes(` ${stem}.${last + i}/`));
    if (!taken) return base;
  }
  throw new Error("no free /30 in 10.200.0.0/16");
}

/** Makes rig `index` of this process: namespace, veth pair, addresses, a default route back to this machine. */
export async function createRig(index: number): Promise<Rig> {
  const name = `${prefix}${process.pid}-${index}`;
  const outside = `t${process.pid}h${index}`;
  const inside = `t${process.pid}a${index}`;
  const base = await freeSubnet();
  const stem = base.slice(0, base.lastIndexOf("."));
  const last = Number(base.slice(base.lastIndexOf(".") + 1));
  const gateway = `${stem}.${last + 1}`;
  const address = `${stem}.${last + 2}`;
  const inNs = (...args: string[]) => ip("netns", "exec", name, "ip", ...args);
  const remove = async () => {
    await ip("netns", "del", name).catch(() => undefined); // takes the veth pair with it
    await ip("link", "del", outside).catch(() => undefined);
  };
  try {
    await ip("netns", "add", name);
    await ip("link", "add", outside, "type", "veth", "peer", "name", inside);
    await ip("link", "set", inside, "netns", name);
    await ip("addr", "add", `${gateway}/30`, "dev", outside);
    await ip("link", "set", outside, "up");
    await inNs("addr", "add", `${address}/30`, "dev", inside);
    await inNs("link", "set", inside, "up");
    await inNs("link", "set", "lo", "up");
    // Everything else on this machine (the target on another rig's gateway address) is reached through it.
    await inNs("route", "add", "default", "via", gateway);
  } catch (error) {
    await remove();
    throw error;
  }
  return {
    name,
    address,
    gateway,
    command: (argv) => ({ command: "ip", args: ["netns", "exec", name, ...argv] }),
    unplug: async () => void (await inNs("link", "set", inside, "down")),
    plug: async () => {
      await inNs("link", "set", inside, "up");
      await inNs("route", "replace", "default", "via", gateway); // the route went with the link
    },
    remove,
  };
}
