import { randomBytes } from "node:crypto";
import { promises as fs } from "node:fs";
import path from "node:path";
import type { PlanSpecInput } from "@throng/protocol/plan";
import { spawnChild, type Child } from "../../infra/local/child";
import { signUp, type Browser } from "../fault/support/api-client";
import { root } from "../fault/support/processes";
import { startControlPlane, startEnrolledAgent } from "./control-plane";
import { type Cleanup, tempDirFor } from "./file-cleanups";

/** What a file that runs `throng run` as a CI job does needs: a folder, the API, a signed-up user and a run token. */
export interface CliBed {
  dir: string;
  apiUrl: string;
  browser: Browser;
  apiToken: string;
}

/**
 * The control plane, a signed-up user with a run-scoped API token (the CI job's) and one agent of one engine enrolled
 * into their organisation; its folder is `dirPrefix…`. Everything stops with the file's `cleanups`.
 */
export async function startCliBed(cleanups: Cleanup[], tails: (() => string)[], dirPrefix: string): Promise<CliBed> {
  const dir = await tempDirFor(cleanups, dirPrefix);
  const { apiUrl } = await startControlPlane(cleanups, tails);
  const browser = await signUp(apiUrl);
  const apiToken = (await browser.request<{ token: string }>("POST", "/api/tokens", { name: "ci", scope: "run" }))
    .token;
  await startEnrolledAgent({ apiUrl }, browser, dir, cleanups, tails, ["--engines", "1"]);
  return { dir, apiUrl, browser, apiToken };
}

/** One `throng run` under way: the process, what it has printed so far and the files it writes. */
export interface ThrongRun {
  cli: Child;
  stdout: () => string;
  jsonPath: string;
  junitPath: string;
}

/**
 * Writes `plan` to the bed's folder and starts `throng run plan.json --wait --json out.json [--junit out.xml] <args>`
 * from source with the bed's server and token, as a CI job runs it; stopped with the file's `cleanups`.
 */
export async function spawnThrongRun(
  bed: CliBed,
  cleanups: Cleanup[],
  plan: PlanSpecInput,
  options: { junit?: boolean; args?: string[] } = {},
): Promise<ThrongRun> {
  const name = randomBytes(4).toString("hex");
  const planPath = path.join(bed.dir, `${name}.json`);
  const jsonPath = path.join(bed.dir, `${name}-out.json`);
  const junitPath = path.join(bed.dir, `${name}-junit.xml`);
  await fs.writeFile(planPath, JSON.stringify(plan));
  let stdout = "";
  const cli = spawnChild({
    name: "throng",
    command: process.execPath,
    cwd: root,
    args: [
      ...["--import", "tsx", path.join(root, "cli/src/main.ts")],
      ...["run", planPath, "--wait", "--json", jsonPath],
      ...(options.junit ? ["--junit", junitPath] : []),
      ...(options.args ?? []),
    ],
    env: { ...process.env, THRONG_SERVER: bed.apiUrl, THRONG_TOKEN: bed.apiToken },
    log: (line) => {
      stdout += `${line}\n`;
    },
  });
  cleanups.push(() => cli.stop("SIGKILL", 1_000));
  return { cli, stdout: () => stdout, jsonPath, junitPath };
}
