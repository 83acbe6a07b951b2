import { createServer, type Server } from "node:net";

/**
 * Which block of loopback addresses (127.B.x.y) a shard's connections come from, held for the shard's life so that
 * two shards on one host never share one. A loopback target past 10,000 clients is reached from addresses the agent
 * chooses with ports it binds itself (shard-setup.ts, local-ports.ts), and an address takes ~19,000 connections to
 * one target port. Taking the block from the shard's index alone gave every standalone `run` (always shard 0) and
 * the first agent of every run 127.0.0.x: four runs of 25,000 clients started together on one host shared two
 * addresses, held 42,346 connections between them and failed the rest as unreachable.
 *
 * A block is claimed by listening on an abstract Unix socket named after it (Linux: no file, gone with the process
 * that held it, even after kill -9), so the claim needs no cleanup and no shared state beyond the kernel's.
 */

/** Blocks 0–191; 127.192.0.0 and up are the network cohorts' (network/cohort-network.ts). */
export const LOOPBACK_BLOCKS = 192;

export interface LoopbackBlock {
  /** B of 127.B.x.y. */
  index: number;
  /** Whether another shard on this host held the one preferred. */
  moved: boolean;
  release(): void;
}

const claimName = (index: number) => `\0throng-loopback-block-${index}`;

/** Listens on `index`'s name: the server, "taken" when another process or shard holds it, or the error. */
function listenOn(index: number): Promise<Server | "taken" | Error> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "EADDRINUSE" ? "taken" : error));
    server.listen({ path: claimName(index) }, () => {
      server.unref(); // a claim never keeps the agent running
      resolve(server);
    });
  });
}

/**
 * Claims the first free block from `preferred` on (the shard's index; wrapping). Where abstract sockets do not
 * exist (not Linux) nothing can be claimed and the preferred block is used as before, unclaimed.
 */
export async function claimLoopbackBlock(preferred: number, blocks = LOOPBACK_BLOCKS): Promise<LoopbackBlock> {
  const first = preferred % blocks;
  for (let step = 0; step < blocks; step++) {
    const index = (first + step) % blocks;
    const claimed = await listenOn(index);
    if (claimed === "taken") continue;
    if (claimed instanceof Error) break;
    return { index, moved: index !== first, release: () => claimed.close() };
  }
  return { index: first, moved: false, release() {} };
}
