import { spawn } from "node:child_process";
import { once } from "node:events";
import { describe, expect, it } from "vitest";
import { claimLoopbackBlock } from "./loopback-block";

// Real abstract Unix sockets (Linux): the claim is the kernel's, so it holds across processes and dies with them.
describe("a shard's loopback block", () => {
  it("is the preferred one when free, the next free one when another shard holds it, and free again once released", async () => {
    const a = await claimLoopbackBlock(40);
    const b = await claimLoopbackBlock(40);
    expect([a.index, a.moved]).toEqual([40, false]);
    expect([b.index, b.moved]).toEqual([41, true]);
    a.release();
    const c = await claimLoopbackBlock(40);
    expect(c.index).toBe(40);
    b.release();
    c.release();
  });

  it("wraps past the last block", async () => {
    const last = await claimLoopbackBlock(191);
    const next = await claimLoopbackBlock(191);
    expect(next.index).toBeLessThan(191); // 0, unless another run on this host holds it
    expect(next.moved).toBe(true);
    last.release();
    next.release();
  });

  it("is skipped while another process holds it, and free once that process is killed", async () => {
    // Another agent on this host: a process that claims block 50 and waits.
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `require("node:net").createServer().listen({ path: "\\0throng-loopback-block-50" }, () => console.log("held"))`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await once(holder.stdout!, "data");
      const mine = await claimLoopbackBlock(50);
      expect(mine.index).toBe(51);
      mine.release();
    } finally {
      holder.kill("SIGKILL");
      await once(holder, "exit");
    }
    const after = await claimLoopbackBlock(50);
    expect(after.index).toBe(50);
    after.release();
  });
});
