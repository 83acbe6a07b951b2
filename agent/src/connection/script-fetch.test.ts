import { afterEach, describe, expect, it, vi } from "vitest";
import type { AgentToServerMessage } from "@throng/protocol/agent";
import { createScriptFetcher } from "./script-fetch";

const HASH = "ab".repeat(32);

afterEach(() => vi.useRealTimers());

describe("fetching script bundles over the control connection (PROTOCOL.md §12)", () => {
  it("sends one script-fetch per hash however many shards wait, and answers them all with the bundle", async () => {
    const sent: AgentToServerMessage[] = [];
    const fetcher = createScriptFetcher((m) => {
      sent.push(m);
      return true;
    });
    const both = Promise.all([fetcher.fetch(HASH), fetcher.fetch(HASH)]);
    fetcher.receive({ sha256: HASH, source: "export default () => {}" });
    expect(await both).toEqual(["export default () => {}", "export default () => {}"]);
    expect(sent).toEqual([{ type: "script-fetch", payload: { sha256: HASH } }]);
  });

  it("fails with the server's reason, when not connected, and after the timeout", async () => {
    const fetcher = createScriptFetcher(() => true, 1_000);
    const unknown = fetcher.fetch(HASH);
    fetcher.receive({ sha256: HASH, error: "no script bundle in this agent's organisation" });
    await expect(unknown).rejects.toThrow(
      `the server has no script bundle ${HASH}: no script bundle in this agent's organisation`,
    );

    await expect(createScriptFetcher(() => false).fetch(HASH)).rejects.toThrow("not connected to the server");

    vi.useFakeTimers();
    const silent = fetcher.fetch(HASH);
    vi.advanceTimersByTime(1_000);
    await expect(silent).rejects.toThrow(`the server did not send script bundle ${HASH} within 1 s`);
  });
});
