import { mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { defaultConfigPath, readCredential, writeCredential } from "./credential-file";

const credential = { agentId: "0b8a3c1e-7d2f-4a6b-9c1d-2e3f4a5b6c7d", secret: "s3cret" };
let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "throng-agent-cred-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("credential file (PROTOCOL.md §2)", () => {
  it("defaults to $XDG_CONFIG_HOME/throng/agent.json, else ~/.config/throng/agent.json", () => {
    expect(defaultConfigPath("/xdg", "/home/a")).toBe("/xdg/throng/agent.json");
    expect(defaultConfigPath(undefined, "/home/a")).toBe("/home/a/.config/throng/agent.json");
  });

  it("writes the file 0600 in a 0700 directory and reads it back for the same server only", async () => {
    const path = join(dir, "nested", "throng", "agent.json");
    await writeCredential(path, "http://localhost:4000/", credential);

    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, "nested", "throng"))).mode & 0o777).toBe(0o700);
    expect(await readCredential(path, "http://localhost:4000")).toEqual(credential);
    expect(await readCredential(path, "http://other:4000")).toBeUndefined();
  });

  it("keeps credentials for other servers when storing a new one", async () => {
    const path = join(dir, "agent.json");
    await writeCredential(path, "http://a:4000", credential);
    await writeCredential(path, "http://b:4000", { ...credential, secret: "other" });
    expect(await readCredential(path, "http://a:4000")).toEqual(credential);
    expect(JSON.parse(await readFile(path, "utf8")).servers["http://b:4000"].secret).toBe("other");
  });

  it("treats a missing file as no credential and a corrupt one as an error that says what to do", async () => {
    expect(await readCredential(join(dir, "missing.json"), "http://a:4000")).toBeUndefined();
    const path = join(dir, "agent.json");
    await writeFile(path, "{not json");
    await expect(readCredential(path, "http://a:4000")).rejects.toThrow(/not valid JSON; fix it or delete it/);
  });
});
