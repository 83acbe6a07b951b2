import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PlanFileError } from "./errors";
import { parsePlan, readPlanFile } from "@throng/wire/plan-reader";
import { PLAN_YAML } from "./testing/fixtures";

describe("plan files", () => {
  it("reads a YAML plan and applies the shared schema's defaults", () => {
    const plan = parsePlan(PLAN_YAML, "plan.yaml");
    expect(plan).toMatchObject({
      name: "lobby smoke",
      load: { clients: 5, durationSec: 2, rampUpSec: 0 },
      slos: [{ metric: "rtt-p99-ms", below: 50 }],
    });
  });

  it("reads a JSON plan", () => {
    const json = JSON.stringify(parsePlan(PLAN_YAML, "plan.yaml"));
    expect(parsePlan(json, "plan.json").name).toBe("lobby smoke");
  });

  it("names the file and every bad field", () => {
    const bad = PLAN_YAML.replace("clients: 5", "clients: 0").replace("intervalMs: 100", "intervalMs: 1");
    expect(() => parsePlan(bad, "ci/plan.yaml")).toThrow(PlanFileError);
    expect(() => parsePlan(bad, "ci/plan.yaml")).toThrow(
      /ci\/plan\.yaml is not a valid plan:[\s\S]*load\.clients: must be at least 1/,
    );
    expect(() => parsePlan(bad, "ci/plan.yaml")).toThrow(/scenario\.intervalMs: must be at least 10 ms/);
  });

  it("refuses text that is not YAML, or not a mapping", () => {
    expect(() => parsePlan("name: [unclosed", "p.yaml")).toThrow(/p\.yaml is not valid YAML or JSON/);
    expect(() => parsePlan("just a string", "p.yaml")).toThrow(/p\.yaml is not a plan/);
  });

  it("says which file it cannot read", async () => {
    const dir = await mkdtemp(join(tmpdir(), "throng-cli-"));
    await expect(readPlanFile(join(dir, "missing.yaml"))).rejects.toThrow(/cannot read plan .*missing\.yaml: ENOENT/);
    await writeFile(join(dir, "plan.yml"), PLAN_YAML);
    expect((await readPlanFile(join(dir, "plan.yml"))).name).toBe("lobby smoke");
  });

  it("checks the plan's codecs as the agent and the API do: a .proto that does not compile fails here, before any request", () => {
    const protobuf = `${PLAN_YAML}
protobuf: { proto: "message {" }
`;
    expect(() => parsePlan(protobuf, "ci/plan.yaml")).toThrow(
      /ci\/plan\.yaml is not a valid plan:\n {2}protobuf\.proto: does not parse/,
    );
  });
});
