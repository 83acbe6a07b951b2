// Run notes and tags (issue 18) as a team uses them: a note with line breaks and tags added and removed on the run
// page (kept across a reload), a tag the API would refuse explained beside the field, the runs list showing each
// run's tags and filtered by one (typed, or a chip clicked) through GET /api/runs?tag=, and the report showing the
// note and tags, on the signed-in page and the public share page. Screenshots go to e2e/artifacts/run-notes-*.png.
import { expect, test } from "./support/test";
import { finishedPingPongRuns, json, pageJourney, stamp, url, write } from "./support/e2e-env";

const journey = pageJourney("run-notes");
const { shot } = journey;

test("run notes: a note and tags added on the run page, the runs list filtered by tag, the report showing both", async () => {
  test.setTimeout(180_000);
  const { page, targetUrl } = await journey.signUpWithAgentAndTarget("Note Taker", "run-notes");
  // Two short runs, one after the other: the first is tagged a release, the second a nightly.
  const { runIds } = await finishedPingPongRuns(page, {
    name: `Notes ${stamp}`,
    targetUrl,
    durationSec: 2,
    count: 2,
  });
  const [release, nightly] = runIds as [string, string];

  // The run page: a note with a line break, tags typed as people type them.
  await page.goto(url(`/runs/${release}`));
  const notes = page.getByTestId("run-notes");
  await expect(notes.getByText("No tags yet.")).toBeVisible();
  await notes.getByTestId("run-note-edit").click();
  await notes
    .getByLabel("Note", { exact: true })
    .fill("Build 1.4.2 on the new lobby pool.\np99 rose after 40 s: GC pauses?");
  await notes.getByRole("button", { name: "Save note" }).click();
  await expect(notes.getByTestId("run-note-text")).toHaveText(
    "Build 1.4.2 on the new lobby pool.\np99 rose after 40 s: GC pauses?",
  );
  const newTag = notes.getByLabel("New tag");
  for (const typed of ["Release 1.4", "lobby-pool", "wrong-one"]) {
    await newTag.fill(typed);
    await newTag.press("Enter");
    await expect(notes.locator(`.chip[data-tag="${typed.toLowerCase().replace(" ", "-")}"]`)).toBeVisible();
  }
  await notes.getByRole("button", { name: "Remove tag wrong-one" }).click();
  await expect(notes.locator('.chip[data-tag="wrong-one"]')).toHaveCount(0);
  await newTag.fill("no/slashes");
  await newTag.press("Enter");
  await expect(notes.getByTestId("run-tag-new-problem")).toContainText("lowercase letters, digits");
  // By the person's name, not their email.
  await expect(notes.getByTestId("run-notes-edited")).toContainText("Last edited by Note Taker,");
  await shot("run-page");

  // Kept by the API: a reload shows the same note and tags.
  await page.reload();
  await expect(notes.getByTestId("run-note-text")).toContainText("p99 rose after 40 s");
  await expect(notes.getByTestId("run-tags").locator(".chip")).toHaveText([/^release-1\.4/, /^lobby-pool/]);
  // The line break is the note's own formatting: kept in the text and shown as a break.
  const note = notes.getByTestId("run-note-text");
  expect(await note.evaluate((element) => [element.textContent, getComputedStyle(element).whiteSpace])).toEqual([
    "Build 1.4.2 on the new lobby pool.\np99 rose after 40 s: GC pauses?",
    "pre-wrap",
  ]);

  await page.goto(url(`/runs/${nightly}`));
  await notes.getByLabel("New tag").fill("nightly");
  await notes.getByLabel("New tag").press("Enter");
  await expect(notes.locator('.chip[data-tag="nightly"]')).toBeVisible();

  // The runs list: every run with its tags, then filtered by a typed tag.
  await page.goto(url("/runs"));
  const row = (id: string) => page.locator(`[data-testid="run-row"][data-run-id="${id}"]`);
  await expect(row(release).getByTestId("run-tags").locator(".chip")).toHaveText(["release-1.4", "lobby-pool"]);
  await expect(row(nightly).getByTestId("run-tags").locator(".chip")).toHaveText(["nightly"]);
  await page.getByLabel("Tag", { exact: true }).fill("release-1.4");
  await page.getByLabel("Tag", { exact: true }).press("Enter");
  await expect(page).toHaveURL(/[?&]tag=release-1\.4/);
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(row(release)).toBeVisible();
  await expect(page.getByTestId("run-range")).toHaveText("Runs 1–1 of 1");
  await shot("list-filtered");

  // A chip in the list filters by its tag.
  await page.getByRole("button", { name: "Clear filters" }).first().click();
  await expect(page.getByTestId("run-row")).toHaveCount(2);
  await row(nightly).getByRole("link", { name: "nightly" }).click();
  await expect(page).toHaveURL(/[?&]tag=nightly/);
  await expect(page.getByTestId("run-row")).toHaveCount(1);
  await expect(row(nightly)).toBeVisible();
  await expect(page.getByLabel("Tag", { exact: true })).toHaveValue("nightly");

  // The report carries the note and tags.
  await page.goto(url(`/runs/${release}/report`));
  await expect(page.getByTestId("report-tags").locator(".chip")).toHaveText(["release-1.4", "lobby-pool"]);
  await expect(page.getByTestId("report-note")).toHaveText(
    "Build 1.4.2 on the new lobby pool.\np99 rose after 40 s: GC pauses?",
  );
  await shot("report");

  // So does the public share page, read without the dashboard's links.
  const link = await json<{ token: string }>(
    await page.request.post(url(`/api/runs/${release}/share-links`), { data: {}, ...write }),
    "create share link",
  );
  await page.goto(url(`/share/${link.token}`));
  await expect(page.getByTestId("report-tags").locator(".chip")).toHaveText(["release-1.4", "lobby-pool"]);
  await expect(page.getByTestId("report-tags").getByRole("link")).toHaveCount(0);
  await expect(page.getByTestId("report-note")).toContainText("p99 rose after 40 s");
});
