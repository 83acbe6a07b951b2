// A process and its descendants from /proc: their memory (PSS is the fair sum, since Node's code pages are
// shared between engine processes; RSS counts them once per process) and their CPU time. Linux only.
import { readdirSync, readFileSync } from "node:fs";

const CLOCK_TICKS = 100;

/** Fields of /proc/PID/stat after the command name: state is [0], ppid [1], utime [11], stime [12]. */
function statFields(pid: number): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  } catch {
    return undefined;
  }
}

/** `root` and every process below it. */
export function treePids(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = Number(statFields(Number(entry))?.[1]);
    if (Number.isFinite(ppid)) children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const child of children.get(pid) ?? []) walk(child);
  };
  walk(root);
  return out;
}

export interface TreeMemory {
  processes: number;
  pssBytes: number;
  rssBytes: number;
  /** Each process's PSS and RSS, largest PSS first. */
  each: { pid: number; pssBytes: number; rssBytes: number }[];
}

function rollup(pid: number): { pssBytes: number; rssBytes: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, "m").exec(text)?.[1] ?? 0) * 1024;
    return { pssBytes: kb("Pss"), rssBytes: kb("Rss") };
  } catch {
    return undefined;
  }
}

/** Memory of `root`'s tree now. */
export function treeMemory(root: number): TreeMemory {
  const each = treePids(root).flatMap((pid) => {
    const memory = rollup(pid);
    return memory ? [{ pid, ...memory }] : [];
  });
  each.sort((a, b) => b.pssBytes - a.pssBytes);
  return {
    processes: each.length,
    pssBytes: each.reduce((s, m) => s + m.pssBytes, 0),
    rssBytes: each.reduce((s, m) => s + m.rssBytes, 0),
    each,
  };
}

/** CPU seconds (user + system) used so far by `root`'s tree, its children that have exited and been waited for included. */
export function treeCpuSeconds(root: number): number {
  return treePids(root).reduce((sum, pid) => {
    const fields = statFields(pid);
    // utime, stime, cutime, cstime
    return sum + (fields ? [11, 12, 13, 14].reduce((s, i) => s + Number(fields[i] ?? 0), 0) / CLOCK_TICKS : 0);
  }, 0);
}

/** A number from a /proc file, or undefined where it cannot be read. */
function procNumber(path: string): number | undefined {
  try {
    return Number(readFileSync(path, "utf8").trim());
  } catch {
    return undefined;
  }
}

/**
 * The kernel's socket counts and TCP buffer memory (/proc/net/sockstat; `mem` is in pages), and the connection
 * tracking table's entries against its size (nf_conntrack: 0 entries when no firewall rule asks for tracking).
 */
export function socketStats(): { tcpInUse: number; tcpMemBytes: number; timeWait: number; line: string } {
  const text = readFileSync("/proc/net/sockstat", "utf8");
  const tcp = /^TCP: (.*)$/m.exec(text)?.[1] ?? "";
  const field = (name: string) => Number(new RegExp(`${name} (\\d+)`).exec(tcp)?.[1] ?? 0);
  const tracked = procNumber("/proc/sys/net/netfilter/nf_conntrack_count");
  const conntrack =
    tracked === undefined
      ? ""
      : `; conntrack ${tracked} of ${procNumber("/proc/sys/net/netfilter/nf_conntrack_max")} entries`;
  return {
    tcpInUse: field("inuse"),
    tcpMemBytes: field("mem") * 4096,
    timeWait: field("tw"),
    line: `TCP: ${tcp}${conntrack}`,
  };
}

/** One process's private memory by kind (/proc/PID/smaps): malloc's heap, anonymous maps (V8's heap pages), the rest. */
export function privateByKind(pid: number): { mallocBytes: number; anonymousBytes: number; otherBytes: number } {
  const out = { mallocBytes: 0, anonymousBytes: 0, otherBytes: 0 };
  let kind: keyof typeof out = "otherBytes";
  try {
    for (const line of readFileSync(`/proc/${pid}/smaps`, "utf8").split("\n")) {
      const map = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
      if (map) kind = map[1] === "[heap]" ? "mallocBytes" : map[1] === "" ? "anonymousBytes" : "otherBytes";
      else if (/^Private_(Clean|Dirty):/.test(line)) out[kind] += Number(line.split(/\s+/)[1]) * 1024;
    }
  } catch {
    // Gone: zeros.
  }
  return out;
}
