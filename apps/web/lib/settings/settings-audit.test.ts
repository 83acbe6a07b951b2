import { describe, expect, it } from "vitest";
import { shortId } from "../shared/format";
import { describeAction, describeDetails, describeTarget, targetNames } from "./settings-audit";

describe("describeAction", () => {
  it("names known actions and passes unknown ones through", () => {
    expect(describeAction("api-token.revoked")).toBe("Revoked an API token");
    expect(describeAction("share-link.created")).toBe("Created a report share link");
    expect(describeAction("agent.enrolled")).toBe("Enrolled an agent");
    expect(describeAction("thing.done")).toBe("Thing done");
  });

  it("says in words the channels, schedules, scripts and aborts the core records", () => {
    const runId = "ba4240f2-0000-4000-8000-000000000000";
    const sha = "e8b924c262ef".padEnd(64, "0");
    const entries = [
      {
        action: "notification-channel.created",
        target: "c1",
        details: { name: "ops", kind: "slack", host: "hooks.slack.com", events: ["failed"] },
      },
      {
        action: "schedule.set",
        target: "p1",
        details: { name: "Nightly", cron: "0 3 * * *", timezone: "Europe/Berlin" },
      },
      { action: "script.stored", target: sha, details: { name: "bots.js", sizeBytes: 1234 } },
      { action: "run.aborted", target: runId, details: { name: "Lobby soak" } },
    ];
    const names = targetNames(entries);
    expect(entries.map((entry) => describeAction(entry.action))).toEqual([
      "Added a notification channel",
      "Scheduled a plan's runs",
      "Stored a script",
      "Aborted a run",
    ]);
    expect(entries.map((entry) => describeTarget(entry, names))).toEqual([
      "notification channel “ops”",
      "schedule of plan “Nightly”",
      "script “bots.js”",
      "run ba4240f2… of “Lobby soak”",
    ]);
    expect(describeDetails(entries[0]!)).toBe("kind: slack; host: hooks.slack.com; events: failed");
    expect(describeDetails(entries[1]!)).toBe("cron: 0 3 * * *; time zone: Europe/Berlin");
    expect(describeDetails(entries[2]!)).toBe("size (bytes): 1,234");
    expect(describeAction("notification-channel.removed")).toBe("Removed a notification channel");
    expect(describeAction("schedule.removed")).toBe("Stopped a plan's schedule");
  });
});

describe("describeDetails", () => {
  it("shows a role change as from → to", () => {
    expect(describeDetails({ action: "member.role-changed", details: { from: "viewer", to: "member" } })).toBe(
      "viewer → member",
    );
  });

  it("lists other details as key: value, arrays joined and long values cut", () => {
    const text = describeDetails({
      action: "settings.changed",
      details: { targetAllowList: ["a.example.com", "b.example.com"], maxClients: 10, note: "x".repeat(200) },
    });
    expect(text).toMatch(/^allowed targets: a\.example\.com, b\.example\.com; max clients: 10; note: x+…$/);
    expect(describeDetails({ action: "settings.changed", details: { maxClients: 5000 } })).toBe("max clients: 5,000");
    expect(text.length).toBeLessThan(200);
  });

  it("shows times like the Time column, not as ISO text", () => {
    expect(
      describeDetails({ action: "invitation.created", details: { expiresAt: "2026-11-25T03:59:15.824Z" } }),
    ).not.toMatch(/T03:59/);
  });

  it("says (none) for an emptied list", () => {
    expect(describeDetails({ action: "settings.changed", details: { targetAllowList: [] } })).toBe(
      "allowed targets: (none)",
    );
  });

  it("reads yes or no, and a missing expiry as never, rather than code words", () => {
    expect(describeDetails({ action: "enrolment-token.created", details: { expiresAt: null, singleUse: false } })).toBe(
      "expires: never; single use: no",
    );
  });

  it("leaves out the run of a share link, which its Target column already names", () => {
    const runId = "ba4240f2-0000-4000-8000-000000000000";
    expect(describeDetails({ action: "share-link.created", details: { runId, expiresAt: null } })).toBe(
      "expires: never",
    );
    expect(describeDetails({ action: "api-token.created", details: { runId } })).toBe("run: ba4240f2…");
  });
});

describe("shortId", () => {
  it("shortens UUIDs and leaves other targets (emails) whole", () => {
    expect(shortId("ed15a92a-5ba4-4f48-a93f-f9975ae86837")).toBe("ed15a92a…");
    expect(shortId("ada@example.com")).toBe("ada@example.com");
  });
});

describe("describeTarget", () => {
  const token = "ed15a92a-5ba4-4f48-a93f-f9975ae86837";
  const entries = [
    { action: "api-token.revoked", target: token, details: {} },
    { action: "api-token.created", target: token, details: { name: "nightly CI", scope: "run" } },
  ];

  it("names a revoked token by the name it was created with, never by a raw id beside a label", () => {
    const names = targetNames(entries);
    expect(describeTarget(entries[0]!, names)).toBe("API token “nightly CI”");
    expect(describeDetails(entries[1]!)).toBe("scope: run");
  });

  it("falls back to the kind and a short id, and leaves an email whole", () => {
    expect(describeTarget({ action: "agent.revoked", target: token }, new Map())).toBe("agent ed15a92a…");
    expect(describeTarget({ action: "member.removed", target: "ada@example.com" }, new Map())).toBe("ada@example.com");
  });
});
