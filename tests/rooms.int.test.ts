import { beforeAll, describe, expect, it } from "vitest";
import { RunRooms, roomsSpreadLine } from "@throng/protocol/rooms";
import { RunReport, RunView } from "@throng/protocol/run";
import { startTarget } from "@throng/agent/target/target-server";
import { signUp, waitForStatus, type Browser } from "./fault/support/api-client";
import { startControlPlane, startEnrolledAgent, type ControlPlane } from "./support/control-plane";
import { cleanUpAfterFile, tempDirFor } from "./support/file-cleanups";

/**
 * movement-sync per room (issue 28 §1, agent/PROTOCOL.md §5.3): a real agent of two engines, under the real api and
 * workers, against the reference target dropping every 4th broadcast of room 3. The worst room comes back first with
 * its reach from GET /api/runs/:id/rooms and in the report (its JSON export, PDF and share page read it there).
 */
const { cleanups, tails } = cleanUpAfterFile();
let plane: ControlPlane;
let browser: Browser;
let targetUrl = "";
const failure = () => tails.map((t) => t()).join("\n");

beforeAll(async () => {
  const target = await startTarget({ port: 0, dropBroadcasts: { room: 3, every: 4 } });
  cleanups.push(() => target.close());
  targetUrl = target.url;
  plane = await startControlPlane(cleanups, tails);
  browser = await signUp(plane.apiUrl);
  const dir = await tempDirFor(cleanups, "throng-rooms-");
  await startEnrolledAgent(plane, browser, dir, cleanups, tails, ["--engines", "2"]);
}, 240_000);

describe("rooms from the agent to the report", () => {
  it("the room whose broadcasts the target drops comes first with its reach, across both engines' rooms", async () => {
    const saved = await browser.request<{ id: string }>("POST", "/api/plans", {
      name: "rooms: one lossy",
      target: { protocol: "websocket", url: targetUrl },
      scenario: { kind: "movement-sync", roomSize: 4, updateHz: 10 },
      // Long enough for engine processes forked late on a busy machine to get their clients in.
      load: { clients: 24, durationSec: 12, rampUpSec: 0 },
      agents: { labels: {}, onLost: "continue" },
    });
    const started = RunView.parse(await browser.request("POST", `/api/plans/${saved.id}/runs`));
    const { run } = await waitForStatus(browser, started.id, ["finished", "failed", "aborted"], 90_000);
    const rooms = RunRooms.parse(await browser.request("GET", `/api/runs/${run.id}/rooms`));
    expect(rooms.rooms, `${run.error} ${failure()}`).toBe(6);
    expect(rooms.agents).toBe(1);
    const [worst, ...others] = rooms.worst;
    expect(worst).toMatchObject({ room: 3, members: 4 });
    expect(worst!.reach).toBeGreaterThan(0.7);
    expect(worst!.reach).toBeLessThan(0.8);
    expect(others.map((room) => room.room).sort()).toEqual([0, 1, 2, 4, 5]);
    for (const room of others) expect(room.reach).toBeGreaterThan(0.95);
    expect(rooms.spread.reachMin).toBe(worst!.reach);
    // The best room's reach may fall short of 100 % by the broadcasts still in flight when the run stopped.
    expect(roomsSpreadLine(rooms)).toMatch(/^reach 7\d(\.\d)?–(9\d(\.\d)?|100) %, p99 [\d.–]+ ms across 6 rooms$/);

    const report = RunReport.parse(await browser.request("GET", `/api/runs/${run.id}/report`));
    expect(report.rooms).toEqual(rooms);
    const link = await browser.request<{ token: string }>("POST", `/api/runs/${run.id}/share-links`, {});
    const shared = RunReport.parse(await (await fetch(`${plane.apiUrl}/api/public/reports/${link.token}`)).json());
    expect(shared.rooms).toEqual(rooms);

    const stranger = await signUp(plane.apiUrl);
    await expect(stranger.request("GET", `/api/runs/${run.id}/rooms`)).rejects.toThrow(/answered 404/);
  }, 150_000);
});
