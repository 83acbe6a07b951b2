import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { parseSecretsFile, secretsFromEnv, standaloneSecrets } from "./standalone-secrets";

const plan = PlanSpec.parse({
  name: "standalone secrets",
  target: {
    protocol: "websocket",
    url: "ws://127.0.0.1:7070/ws",
    headers: { Authorization: "Bearer {{secrets.TOKEN}}" },
  },
  scenario: {
    kind: "ping-pong",
    intervalMs: 1000,
    messageBytes: 64,
    session: [{ kind: "send", message: { body: "AUTH {{secrets.PASSWORD}}" } }],
  },
  load: { clients: 1, durationSec: 1 },
});

describe("a standalone run's secrets", () => {
  it("reads THRONG_SECRET_<NAME> from the environment, ignoring names a secret cannot have", () => {
    expect(
      secretsFromEnv({ THRONG_SECRET_TOKEN: "t", THRONG_SECRET_: "x", THRONG_SECRET_9A: "y", HOME: "/root" }),
    ).toEqual({ TOKEN: "t" });
  });

  it("reads NAME=value lines, dropping comments, blank lines and one pair of quotes, and names a bad line without its text", () => {
    expect(parseSecretsFile("# lobby\n\nTOKEN=a=b\nexport PASSWORD='p w'\n", "s.env")).toEqual({
      TOKEN: "a=b",
      PASSWORD: "p w",
    });
    expect(() => parseSecretsFile("TOKEN=ok\nhunter2\n", "s.env")).toThrow(
      /^error: s\.env line 2: expected NAME=value/,
    );
    expect(() => parseSecretsFile("hunter2\n", "s.env")).not.toThrow(/hunter2/);
  });

  it("gives only the secrets the plan names, the environment winning over the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "throng-secrets-"));
    try {
      const file = join(dir, "secrets.env");
      await writeFile(file, "TOKEN=from-file\nPASSWORD=pw\nUNUSED=x\n");
      expect(await standaloneSecrets(plan, { env: { TOKEN: "from-env" }, file })).toEqual({
        TOKEN: "from-env",
        PASSWORD: "pw",
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("names each secret without a value, where the plan uses it and how to give it", async () => {
    await expect(standaloneSecrets(plan, { env: { TOKEN: "t" } })).rejects.toThrow(
      "error: the plan names a secret with no value:\n  {{secrets.PASSWORD}} (scenario.session.0.message.body): set THRONG_SECRET_PASSWORD, or give it in a file with --secrets-file",
    );
    await expect(standaloneSecrets(plan, { env: {}, file: "/nonexistent/secrets.env" })).rejects.toThrow(
      "cannot read the secrets file /nonexistent/secrets.env: ENOENT",
    );
  });
});
