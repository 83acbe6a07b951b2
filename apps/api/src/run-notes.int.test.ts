// Run notes and tags (issue 18): PATCH /api/runs/:id sets them, run views, the list, reports and share pages carry
// them, GET /api/runs?tag= filters in the database, bad input answers 400 naming the field, and no other
// organisation (nor a viewer) reads or changes them.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRepos } from "@throng/db/repos";
import { Me, PlanView } from "@throng/protocol/api";
import { ErrorBody } from "@throng/protocol/errors";
import { InvitationCreated } from "@throng/protocol/orgs";
import { ShareLinkCreated } from "@throng/protocol/report";
import { RunReport, RunView } from "@throng/protocol/run";
import { RunPage } from "@throng/protocol/run-list";
import { RUN_NOTE_MAX_LENGTH, RUN_TAG_MAX_LENGTH, RUN_TAGS_MAX } from "@throng/protocol/run-notes";
import { startTestApi, type TestApi, type TestUser } from "./testing/test-api";
import { pingPlan } from "./testing/plans";
import { PlanSpec } from "@throng/protocol/plan";

const spec = { ...pingPlan, name: "notes" };

let api: TestApi;
let user: TestUser;
let orgId: string;
let planId: string;

/** Stores a queued run straight in the database: these tests are about its note, not about starting it. */
async function storedRun(ownerOrg = orgId, ownerPlan = planId): Promise<string> {
  const id = crypto.randomUUID();
  await createRepos(api.db).runs.insert(ownerOrg, {
    id,
    planId: ownerPlan,
    spec: PlanSpec.parse(spec),
    status: "queued",
  });
  return id;
}

const patch = (who: TestUser, runId: string, body: unknown) => who.request("PATCH", `/api/runs/${runId}`, body);
const list = async (who: TestUser, query: string) => {
  const answer = await who.request("GET", `/api/runs${query}`);
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return RunPage.parse(answer.json);
};
function refusal(answer: { status: number; json: unknown }) {
  expect(answer.status, JSON.stringify(answer.json)).toBe(400);
  return ErrorBody.parse(answer.json).error;
}

beforeAll(async () => {
  api = await startTestApi();
  user = await api.signUp("Annotator");
  orgId = Me.parse((await user.request("GET", "/api/me")).json).organization.id;
  planId = PlanView.parse((await user.request("POST", "/api/plans", spec)).json).id;
});

afterAll(async () => {
  await api?.close();
});

describe("PATCH /api/runs/:id", () => {
  it("sets a note with its line breaks and a tag set (each tag once), and names who edited them and when", async () => {
    const runId = await storedRun();
    const before = RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json);
    expect(before).toMatchObject({ note: "", tags: [], notesEditedBy: null, notesEditedAt: null });
    const answer = await patch(user, runId, {
      note: "Build 1.4.2\nlobby on the new pool",
      tags: ["release-1.4", "nightly", "release-1.4"],
    });
    expect(answer.status, JSON.stringify(answer.json)).toBe(200);
    const edited = RunView.parse(answer.json);
    expect(edited).toMatchObject({
      note: "Build 1.4.2\nlobby on the new pool",
      tags: ["release-1.4", "nightly"],
      notesEditedBy: user.email,
    });
    expect(Date.parse(edited.notesEditedAt!)).toBeGreaterThanOrEqual(Date.parse(before.createdAt));
    expect(RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json)).toMatchObject({
      note: edited.note,
      tags: edited.tags,
    });
  });

  it("keeps the field a patch leaves out, and clears one sent empty", async () => {
    const runId = await storedRun();
    await patch(user, runId, { note: "first", tags: ["a", "b"] });
    expect(RunView.parse((await patch(user, runId, { note: "second" })).json)).toMatchObject({
      note: "second",
      tags: ["a", "b"],
    });
    expect(RunView.parse((await patch(user, runId, { tags: ["b"] })).json)).toMatchObject({
      note: "second",
      tags: ["b"],
    });
    expect(RunView.parse((await patch(user, runId, { note: "", tags: [] })).json)).toMatchObject({
      note: "",
      tags: [],
    });
  });

  it("answers 400 naming the field for a note too long, a bad tag, too many tags, a lone surrogate or an empty patch", async () => {
    const runId = await storedRun();
    const cases: [unknown, string][] = [
      [{ note: "x".repeat(RUN_NOTE_MAX_LENGTH + 1) }, "note"],
      [{ tags: ["Release"] }, "tags.0"],
      [{ tags: ["ok", "has space"] }, "tags.1"],
      [{ tags: ["-leading"] }, "tags.0"],
      [{ tags: ["t".repeat(RUN_TAG_MAX_LENGTH + 1)] }, "tags.0"],
      [{ tags: Array.from({ length: RUN_TAGS_MAX + 1 }, (_, i) => `t${i}`) }, "tags"],
      [{ note: "half a pair: \ud800" }, "note"],
      [{ tags: ["x\udfff"] }, "tags.0"],
      [{ note: "x", colour: "red" }, "(root)"],
      [{}, "note"],
      [{ tags: "nightly" }, "tags"],
    ];
    for (const [body, field] of cases) {
      const error = refusal(await patch(user, runId, body));
      expect(error.fields?.[0]?.path, JSON.stringify(body).slice(0, 80)).toBe(field);
    }
    // The bounds hold exactly at the limit.
    const full = {
      note: "x".repeat(RUN_NOTE_MAX_LENGTH),
      tags: Array.from(
        { length: RUN_TAGS_MAX },
        (_, i) => `${"t".repeat(RUN_TAG_MAX_LENGTH - 3)}${String(i).padStart(3, "0")}`,
      ),
    };
    expect((await patch(user, runId, full)).status).toBe(200);
    expect(RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json).tags).toHaveLength(RUN_TAGS_MAX);
  });

  it("is refused by the database too for a writer that skips the API's checks", async () => {
    const runId = await storedRun();
    const store = (tags: string[]) => api.db.updateTable("runs").set({ tags }).where("id", "=", runId).execute();
    await expect(store(["Upper"])).rejects.toThrow(/runs_tags_bounds/);
    await expect(store(Array.from({ length: RUN_TAGS_MAX + 1 }, (_, i) => `t${i}`))).rejects.toThrow(
      /runs_tags_bounds/,
    );
    await expect(
      api.db
        .updateTable("runs")
        .set({ note: "x".repeat(RUN_NOTE_MAX_LENGTH + 1) })
        .where("id", "=", runId)
        .execute(),
    ).rejects.toThrow(/runs_note_length/);
    await store(["fine", "also-fine.1"]);
  });

  it("is 404 for a run that does not exist", async () => {
    expect((await patch(user, "00000000-0000-4000-8000-000000000000", { note: "x" })).status).toBe(404);
  });
});

describe("GET /api/runs?tag=", () => {
  it("lists only the runs carrying the tag, with their notes and tags, alongside the other filters", async () => {
    const tagged = [await storedRun(), await storedRun()];
    const untagged = await storedRun();
    for (const runId of tagged)
      await patch(user, runId, { tags: ["soak", `run-${runId.slice(0, 8)}`], note: `about ${runId}` });
    await patch(user, untagged, { tags: ["smoke"] });
    const soak = await list(user, "?tag=soak");
    expect(soak.matching).toBe(2);
    expect(soak.runs.map((run) => run.id).sort()).toEqual([...tagged].sort());
    for (const run of soak.runs)
      expect(run).toMatchObject({ note: `about ${run.id}`, tags: ["soak", `run-${run.id.slice(0, 8)}`] });
    expect((await list(user, `?tag=run-${tagged[0]!.slice(0, 8)}`)).runs.map((run) => run.id)).toEqual([tagged[0]]);
    expect((await list(user, `?tag=soak&plan=${planId}&status=queued`)).matching).toBe(2);
    expect((await list(user, "?tag=soak&status=finished")).matching).toBe(0);
    expect((await list(user, "?tag=never-used")).matching).toBe(0);
  });

  it("answers 400 naming tag for a tag no run could carry", async () => {
    for (const query of [
      "?tag=Upper",
      "?tag=a%20b",
      `?tag=${"t".repeat(RUN_TAG_MAX_LENGTH + 1)}`,
      "?tag=",
      "?tag=%ED%A0%80",
    ]) {
      const error = refusal(await user.request("GET", `/api/runs${query}`));
      expect(error.message, query).toMatch(/tag/);
    }
  });
});

describe("reports carry the note and tags", () => {
  it("in the signed-in report and on the share page, without naming the member who edited them", async () => {
    const runId = await storedRun();
    await patch(user, runId, { note: "lobby held\nsee the chart at 3 min", tags: ["shared"] });
    const report = RunReport.parse((await user.request("GET", `/api/runs/${runId}/report`)).json);
    expect(report.run).toMatchObject({
      note: "lobby held\nsee the chart at 3 min",
      tags: ["shared"],
      notesEditedBy: user.email,
    });
    const link = ShareLinkCreated.parse((await user.request("POST", `/api/runs/${runId}/share-links`, {})).json);
    const shared = await fetch(`${api.url}/api/public/reports/${link.token}`);
    expect(shared.status).toBe(200);
    const text = await shared.text();
    expect(RunReport.parse(JSON.parse(text)).run).toMatchObject({
      note: "lobby held\nsee the chart at 3 min",
      tags: ["shared"],
      notesEditedBy: null,
    });
    expect(text).not.toContain(user.email);
  });
});

describe("who may see and change a run's note", () => {
  it("keeps each organisation's notes and tags to itself", async () => {
    const runId = await storedRun();
    await patch(user, runId, { note: "ours", tags: ["private-tag"] });
    const stranger = await api.signUp("Stranger");
    expect((await patch(stranger, runId, { note: "theirs", tags: ["hijacked"] })).status).toBe(404);
    expect((await list(stranger, "?tag=private-tag")).matching).toBe(0);
    // The stranger's own run under the same tag does not show in ours, nor ours in theirs.
    const strangerOrg = Me.parse((await stranger.request("GET", "/api/me")).json).organization.id;
    const strangerPlan = PlanView.parse((await stranger.request("POST", "/api/plans", spec)).json).id;
    const theirs = await storedRun(strangerOrg, strangerPlan);
    expect((await patch(stranger, theirs, { tags: ["private-tag"] })).status).toBe(200);
    expect((await list(stranger, "?tag=private-tag")).runs.map((run) => run.id)).toEqual([theirs]);
    expect((await list(user, "?tag=private-tag")).runs.map((run) => run.id)).toEqual([runId]);
    expect(RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json)).toMatchObject({
      note: "ours",
      tags: ["private-tag"],
    });
  });

  it("lets a viewer read them but not change them", async () => {
    const runId = await storedRun();
    await patch(user, runId, { note: "by a member", tags: ["kept"] });
    const viewer = await api.signUp("Viewer");
    const invitation = InvitationCreated.parse(
      (await user.request("POST", "/api/invitations", { role: "viewer" })).json,
    );
    expect((await viewer.request("POST", "/api/invitations/accept", { token: invitation.token })).status).toBeLessThan(
      300,
    );
    expect(RunView.parse((await viewer.request("GET", `/api/runs/${runId}`)).json)).toMatchObject({
      note: "by a member",
      tags: ["kept"],
    });
    const refused = await patch(viewer, runId, { note: "by a viewer" });
    expect(refused.status).toBe(403);
    expect(RunView.parse((await user.request("GET", `/api/runs/${runId}`)).json).note).toBe("by a member");
  });
});
