import { describe, expect, it } from "vitest";
import { draftFromSettings, errorsFromServer, parseAllowList, settingsFromDraft } from "./settings-org-form";

describe("parseAllowList", () => {
  it("keeps one rule per non-blank line and remembers each rule's line", () => {
    expect(parseAllowList("127.0.0.1:7070\n\n  *.example.com  \r\n[::1]:9000\n")).toEqual({
      rules: ["127.0.0.1:7070", "*.example.com", "[::1]:9000"],
      lines: [1, 3, 4],
    });
  });
});

describe("settingsFromDraft", () => {
  it("builds the PUT body from the form", () => {
    const draft = { allowList: "a.example.com\n\nb.example.com:80", maxClients: "10,000", maxDurationSec: "3600" };
    expect(settingsFromDraft(draft)).toEqual({
      ok: true,
      settings: { targetAllowList: ["a.example.com", "b.example.com:80"], maxClients: 10_000, maxDurationSec: 3600 },
    });
  });

  it("names caps that are not whole numbers instead of sending them", () => {
    const result = settingsFromDraft({ allowList: "", maxClients: "lots", maxDurationSec: "1.5" });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.errors.maxClients).toMatch(/whole number/);
      expect(result.errors.maxDurationSec).toMatch(/whole number/);
    }
  });

  it("round-trips saved settings", () => {
    const settings = { targetAllowList: ["x.example.com"], maxClients: 5, maxDurationSec: 60 };
    expect(settingsFromDraft(draftFromSettings(settings))).toEqual({ ok: true, settings });
  });
});

describe("errorsFromServer", () => {
  it("puts a bad rule's message on the line the user typed it", () => {
    const errors = errorsFromServer(
      [
        { path: "targetAllowList.1", message: "use host, host:port, *.domain or [ipv6]:port" },
        { path: "maxClients", message: "too big" },
      ],
      "ok.example.com\n\nnot a rule!",
    );
    expect(errors.allowList).toBe("Line 3 (not a rule!): use host, host:port, *.domain or [ipv6]:port");
    expect(errors.maxClients).toBe("too big");
  });

  it("keeps a whole-list message (e.g. too many rules) as is", () => {
    expect(errorsFromServer([{ path: "targetAllowList", message: "at most 200" }], "").allowList).toBe("at most 200");
  });
});
