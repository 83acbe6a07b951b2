import { describe, expect, it } from "vitest";
import { RUN_NOTE_MAX_LENGTH, RUN_TAG_MAX_LENGTH, RUN_TAGS_MAX } from "@throng/protocol/run-notes";
import { normaliseTag, noteProblem, notesRefusal, typedTag, withTag, withoutTag } from "./run-notes";

describe("run tags typed on the run page", () => {
  it("stores what people type the way the API keeps it: lowercase, spaces as hyphens", () => {
    expect(normaliseTag("  Release 1.4  ")).toBe("release-1.4");
    expect(withTag(["nightly"], "Lobby  Pool")).toEqual({ ok: true, tags: ["nightly", "lobby-pool"] });
  });

  it("reads a typed filter tag the same way, or says why no run could carry it", () => {
    expect(typedTag(" Nightly ")).toEqual({ ok: true, tag: "nightly" });
    expect(typedTag("a/b")).toMatchObject({ ok: false, error: expect.stringMatching(/lowercase letters, digits/) });
  });

  it("refuses an empty tag, one that is not a slug, a repeat and one too many, saying why", () => {
    expect(withTag([], "   ")).toMatchObject({ ok: false, error: expect.stringMatching(/type a tag/) });
    expect(withTag([], "ü-build")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/lowercase letters, digits/),
    });
    expect(withTag([], "-leading")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/starts with a letter or digit/),
    });
    expect(withTag([], "t".repeat(RUN_TAG_MAX_LENGTH + 1))).toMatchObject({
      ok: false,
      error: expect.stringMatching(new RegExp(`at most ${RUN_TAG_MAX_LENGTH}`)),
    });
    expect(withTag(["nightly"], "Nightly")).toMatchObject({ ok: false, error: "nightly is already a tag of this run" });
    const full = Array.from({ length: RUN_TAGS_MAX }, (_, i) => `t${i}`);
    expect(withTag(full, "one-more")).toMatchObject({
      ok: false,
      error: expect.stringMatching(new RegExp(`at most ${RUN_TAGS_MAX} tags`)),
    });
    expect(withTag(full.slice(1), "one-more")).toMatchObject({ ok: true });
  });

  it("removes one tag and keeps the others in order", () => {
    expect(withoutTag(["a", "b", "c"], "b")).toEqual(["a", "c"]);
    expect(withoutTag(["a"], "z")).toEqual(["a"]);
  });
});

describe("a run's note", () => {
  it("takes line breaks and refuses one character past the limit", () => {
    expect(noteProblem("first line\nsecond line")).toBeNull();
    expect(noteProblem("x".repeat(RUN_NOTE_MAX_LENGTH))).toBeNull();
    expect(noteProblem("x".repeat(RUN_NOTE_MAX_LENGTH + 1))).toMatch(new RegExp(`at most ${RUN_NOTE_MAX_LENGTH}`));
  });

  it("words an API refusal by the field it names, counting tags from one", () => {
    expect(notesRefusal([{ path: "tags.1", message: "a tag is lowercase" }], "failed")).toBe(
      "tag 2: a tag is lowercase",
    );
    expect(notesRefusal([{ path: "note", message: "contains invalid Unicode (a lone surrogate)" }], "failed")).toBe(
      "note: contains invalid Unicode (a lone surrogate)",
    );
    expect(notesRefusal([], "Saving failed.")).toBe("Saving failed.");
  });
});
