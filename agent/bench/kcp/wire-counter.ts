// Bytes on the wire as the kernel counts them: an nf_tables table of the bench's own counting, at the output hook,
// every IP packet to and from one port (headers, ACKs and retransmissions included). On loopback each packet passes
// output once, so client and server traffic are both counted once. Needs root (CAP_NET_ADMIN) and nft; otherwise
// the bench says the figure was not counted.
import { execFileSync } from "node:child_process";

const TABLE = `throng_bench_${process.pid}`;

export interface WireCounter {
  /** Starts counting a port's packets (tcp or udp, both directions). */
  watch(protocol: "tcp" | "udp", port: number): void;
  /** IP bytes and packets counted for a port so far. */
  read(protocol: "tcp" | "udp", port: number): { bytes: number; packets: number };
  close(): void;
}

const nft = (args: string[]) => execFileSync("nft", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

/** A counter table, or the reason there is none (not root, no nft). */
export function openWireCounter(): WireCounter | string {
  try {
    nft(["add", "table", "inet", TABLE]);
    // Before every other output chain (the agent's netfilter queue for a cohort included): a packet dropped by an
    // emulated network was still sent.
    nft(["add", "chain", "inet", TABLE, "out", "{ type filter hook output priority -400; policy accept; }"]);
  } catch (error) {
    return `bytes on the wire not counted (nft as root needed): ${String((error as Error).message).split("\n")[0]}`;
  }
  const close = () => {
    try {
      nft(["delete", "table", "inet", TABLE]);
    } catch {
      // gone already
    }
  };
  process.once("exit", close);
  return {
    watch(protocol, port) {
      // A rule each way, from the port and to it, under the one comment read() sums by.
      for (const end of ["sport", "dport"])
        nft([
          "add",
          "rule",
          "inet",
          TABLE,
          "out",
          protocol,
          end,
          String(port),
          "counter",
          "comment",
          `"${protocol}-${port}"`,
        ]);
    },
    read(protocol, port) {
      const listed = JSON.parse(nft(["-j", "list", "table", "inet", TABLE])) as {
        nftables: { rule?: { comment?: string; expr: { counter?: { bytes: number; packets: number } }[] } }[];
      };
      let bytes = 0;
      let packets = 0;
      for (const entry of listed.nftables) {
        if (entry.rule?.comment !== `${protocol}-${port}`) continue;
        for (const expr of entry.rule.expr)
          if (expr.counter) {
            bytes += expr.counter.bytes;
            packets += expr.counter.packets;
          }
      }
      return { bytes, packets };
    },
    close,
  };
}
