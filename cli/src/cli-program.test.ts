import { describe, expect, it } from "vitest";
import { runCli } from "./cli-program";
import type { CliIo } from "./run-command";
import { capturedIo } from "./testing/cli-harness";

const io = (): CliIo & { out: () => string; err: () => string } => capturedIo();

const argv = (...args: string[]) => ["node", "throng", ...args];

describe("throng arguments", () => {
  it("prints help with the exit codes and exits 0", async () => {
    const cli = io();
    expect(await runCli(argv("--help"), {}, cli)).toBe(0);
    expect(cli.out()).toMatch(/Exit codes:[\s\S]*99 +an SLO was breached/);
  });

  it("exits 2 naming how to give a missing server or token", async () => {
    const noServer = io();
    expect(await runCli(argv("run", "plan.yaml", "--token", "thr_api_x"), {}, noServer)).toBe(2);
    expect(noServer.err()).toMatch(/no server: pass --server <url> or set THRONG_SERVER/);
    const noToken = io();
    expect(await runCli(argv("run", "plan.yaml"), { server: "http://localhost:4000" }, noToken)).toBe(2);
    expect(noToken.err()).toMatch(/no token: pass --token <token> or set THRONG_TOKEN/);
  });

  it("exits 2 for an unknown option, a bad URL, or result files without --wait", async () => {
    expect(await runCli(argv("run", "plan.yaml", "--bogus"), {}, io())).toBe(2);
    const badUrl = io();
    expect(
      await runCli(argv("run", "plan.yaml", "--server", "localhost:4000", "--token", "thr_api_x"), {}, badUrl),
    ).toBe(2);
    expect(badUrl.err()).toMatch(/--server must be an http\(s\) URL/);
    const noWait = io();
    expect(
      await runCli(
        argv("run", "plan.yaml", "--junit", "out.xml"),
        { server: "http://x:1", token: "thr_api_x" },
        noWait,
      ),
    ).toBe(2);
    expect(noWait.err()).toMatch(/add --wait/);
  });

  it("exits 2 naming the flag for a --tag or --note the API would refuse, before any request", async () => {
    const env = { server: "http://127.0.0.1:1", token: "thr_api_x" };
    const badTag = io();
    expect(await runCli(argv("run", "plan.yaml", "--tag", "nightly", "--tag", "Not A Slug"), env, badTag)).toBe(2);
    expect(badTag.err()).toMatch(/--tag "Not A Slug": a tag is lowercase letters, digits/);
    const tooMany = io();
    expect(
      await runCli(
        argv("run", "plan.yaml", ...Array.from({ length: 21 }, (_, i) => ["--tag", `t${i}`]).flat()),
        env,
        tooMany,
      ),
    ).toBe(2);
    expect(tooMany.err()).toMatch(/--tag: a run has at most 20 tags/);
    const longNote = io();
    expect(await runCli(argv("run", "plan.yaml", "--note", "x".repeat(4001)), env, longNote)).toBe(2);
    expect(longNote.err()).toMatch(/--note: the note is at most 4000 characters/);
  });

  it("exits 2 naming the flag for a bad --max-regression or --baseline, before any request", async () => {
    const env = { server: "http://127.0.0.1:1", token: "thr_api_x" };
    const cases: [string[], RegExp][] = [
      [
        ["--baseline", "pinned", "--plan-name", "lobby", "--max-regression", "error-rate=1%"],
        /--max-regression: error-rate is a rate: give its allowance in percentage points/,
      ],
      [
        ["--baseline", "pinned", "--plan-name", "lobby", "--max-regression", "p99:10%"],
        /--max-regression: "p99:10%" is not metric=limit/,
      ],
      [["--max-regression", "p99=10%"], /--max-regression holds the run to a baseline: add --baseline/],
      [
        ["--baseline", "pinned", "--max-regression", "p99=10%"],
        /--baseline pinned reads the plan's pinned run: add --plan-name/,
      ],
      [["--baseline", "last-week"], /--baseline must be "pinned" or a run id \(a UUID\), got "last-week"/],
    ];
    for (const [flags, message] of cases) {
      const cli = io();
      expect(await runCli(argv("run", "plan.yaml", "--wait", ...flags), env, cli), flags.join(" ")).toBe(2);
      expect(cli.err()).toMatch(message);
    }
    const noWait = io();
    expect(await runCli(argv("run", "plan.yaml", "--baseline", "pinned", "--plan-name", "lobby"), env, noWait)).toBe(2);
    expect(noWait.err()).toMatch(/--baseline compares a finished run: add --wait/);
  });

  it("exits 2 for a plan file that does not exist, before any request", async () => {
    const cli = io();
    expect(
      await runCli(
        argv("run", "/nonexistent/plan.yaml"),
        { server: "http://127.0.0.1:1", token: "thr_api_secret" },
        cli,
      ),
    ).toBe(2);
    expect(cli.err()).toMatch(/cannot read plan \/nonexistent\/plan\.yaml/);
    expect(cli.err()).not.toContain("thr_api_secret");
  });
});
