import { execFile } from "node:child_process";
import { promises as fs, readdirSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiEnv } from "../../apps/api/src/env";
import { installMethods } from "../../apps/web/lib/agents/install-commands";
import { WorkersEnv } from "../../workers/src/env";
import { buildStrictFields, ensureHelm, HELM_VERSION } from "./helm-binary";
import { parseManifests, schemaErrors, strictFieldErrors, type KubeObject } from "./kubernetes-schemas";

const run = promisify(execFile);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const chart = path.join(root, "infra/helm/throng");
const ciValues = readdirSync(path.join(chart, "ci"))
  .filter((file) => file.endsWith(".yaml"))
  .sort();
// The oldest Kubernetes the chart declares support for is checked by helm itself (Chart.yaml kubeVersion).
const KUBE_VERSION = "1.31.0";
const AGENTS_ONLY = "agents-only-values.yaml";

let helm: string;
let strictFields: string;
let helmHome: string;
beforeAll(async () => {
  const built = await ensureHelm(root, (line) => console.log(`[helm] ${line}`));
  helm = built.helm;
  if (built.buildMs) console.log(`[helm] built ${HELM_VERSION} in ${Math.round(built.buildMs / 1000)} s (nice -n 10)`);
  strictFields = await buildStrictFields(root);
  helmHome = await fs.mkdtemp(path.join(os.tmpdir(), "throng-helm-"));
}, 45 * 60_000);
afterAll(async () => {
  if (helmHome) await fs.rm(helmHome, { recursive: true, force: true });
});

async function helmRun(args: string[]): Promise<string> {
  // Its own config and cache folders: the test reads no repositories and leaves nothing in $HOME.
  const env = { ...process.env, HELM_CONFIG_HOME: helmHome, HELM_CACHE_HOME: helmHome, HELM_DATA_HOME: helmHome };
  try {
    return (await run(helm, args, { env, maxBuffer: 16 << 20 })).stdout;
  } catch (error) {
    const { stderr, stdout } = error as { stderr?: string; stdout?: string };
    throw new Error(`helm ${args.join(" ")} failed:\n${stderr || stdout}`);
  }
}

const template = (values: string[], set: string[] = [], chartDir = chart) =>
  helmRun([
    "template",
    "t",
    chartDir,
    "--namespace",
    "load",
    "--kube-version",
    KUBE_VERSION,
    ...values.flatMap((v) => ["-f", v]),
    ...set.flatMap((s) => ["--set", s]),
  ]);
const render = async (ciFile: string, set: string[] = []) =>
  parseManifests(await template([path.join(chart, "ci", ciFile)], set));

const find = (objects: KubeObject[], kind: string, component: string) =>
  objects.find((o) => o.kind === kind && o.metadata.labels?.["app.kubernetes.io/component"] === component);
type Container = {
  name: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
};
const podSpec = (object: KubeObject | undefined) =>
  (
    object as
      | { spec: { template: { spec: { containers: Container[]; initContainers?: Container[]; volumes?: unknown[] } } } }
      | undefined
  )?.spec.template.spec;

describe(`Helm chart infra/helm/throng (helm ${HELM_VERSION}, Kubernetes ${KUBE_VERSION} schemas)`, () => {
  it("has several values combinations under ci/", () => {
    expect(ciValues.length).toBeGreaterThanOrEqual(4);
  });

  for (const file of ciValues) {
    it(`ci/${file}: helm lint --strict passes and every rendered object validates against its Kubernetes schema`, async () => {
      await helmRun(["lint", "--strict", "--kube-version", KUBE_VERSION, chart, "-f", path.join(chart, "ci", file)]);
      const manifest = await template([path.join(chart, "ci", file)]);
      const objects = parseManifests(manifest);
      expect(objects.length).toBeGreaterThan(0);
      expect(await schemaErrors(objects)).toEqual([]);
      // No field the Kubernetes types lack; only the ServiceMonitor (a CRD) is left to its schema above.
      const strict = await strictFieldErrors(strictFields, manifest);
      expect(strict.errors).toEqual([]);
      expect(strict.unchecked.filter((line) => !line.startsWith("monitoring.coreos.com/v1 ServiceMonitor "))).toEqual(
        [],
      );
    });
  }

  it("api and workers are configured only through variables their env.ts parses, secrets from the chart's Secret", async () => {
    for (const file of ciValues.filter((f) => f !== AGENTS_ONLY)) {
      const objects = await render(file);
      for (const [component, schema] of [
        ["api", ApiEnv],
        ["workers", WorkersEnv],
      ] as const) {
        const spec = podSpec(find(objects, "Deployment", component))!;
        // The migrate step (db/src/migrate-main.ts) reads DATABASE_URL only.
        for (const migrate of spec.initContainers ?? [])
          expect(migrate.env!.map((e) => e.name)).toEqual(["DATABASE_URL"]);
        for (const container of spec.containers) {
          const names = (container.env ?? []).map((e) => e.name);
          expect(
            names.filter((name) => !(name in schema.shape)),
            `${file}: ${component}/${container.name}`,
          ).toEqual([]);
          const secretRefs = Object.fromEntries(
            (container.env ?? []).map((e) => [e.name, e.valueFrom?.secretKeyRef?.name]),
          );
          const secret = file.startsWith("existing-secret") ? "throng-app" : "t-throng-app";
          for (const name of ["AUTH_SECRET", "DATABASE_URL", "REDIS_URL"])
            expect(secretRefs[name], `${file}: ${component} ${name}`).toBe(secret);
        }
      }
    }
  });

  it("agents carry region and pool as pod labels and --label flags, take the enrolment token from a Secret and keep the credential in a volume", async () => {
    for (const [file, kind, secret, key] of [
      ["scale-ingress-tls-monitoring-values.yaml", "Deployment", "t-throng-agent-enrolment", "enrolment-token"],
      ["in-chart-databases-values.yaml", "StatefulSet", "t-throng-agent-enrolment", "enrolment-token"],
      ["existing-secret-values.yaml", "Deployment", "throng-agent-enrolment", "token"],
    ] as const) {
      const objects = await render(file, ["agents.region=ap-south", "agents.pool=nightly"]);
      const agents = find(objects, kind, "agent")!;
      expect(agents, `${file}: agents as a ${kind}`).toBeDefined();
      const template = (agents as { spec: { template: { metadata: { labels: Record<string, string> } } } }).spec
        .template;
      expect(template.metadata.labels).toMatchObject({ "throng.dev/region": "ap-south", "throng.dev/pool": "nightly" });
      const container = podSpec(agents)!.containers[0]!;
      expect(container.args!.join(" ")).toContain("--label region=ap-south --label pool=nightly");
      expect(container.command!.join(" ")).toMatch(
        /throng-agent\.mjs connect --server "\$THRONG_SERVER" \$\{THRONG_ENROLMENT_TOKEN:\+--token/,
      );
      expect(container.env!.find((e) => e.name === "THRONG_ENROLMENT_TOKEN")?.valueFrom?.secretKeyRef).toEqual({
        name: secret,
        key,
      });
      expect(container.env!.find((e) => e.name === "XDG_CONFIG_HOME")?.value).toBe("/var/lib/throng-agent");
      // Each connection is a descriptor: the container asks for agents.openFileLimit before the agent starts.
      expect(container.env!.find((e) => e.name === "THRONG_OPEN_FILES")?.value).toBe("1048576");
      expect(container.command!.join(" ")).toMatch(
        /ulimit -n "\$THRONG_OPEN_FILES".*exec node \/app\/throng-agent\.mjs connect/,
      );
      if (kind === "StatefulSet")
        expect((agents as { spec: { volumeClaimTemplates: unknown[] } }).spec.volumeClaimTemplates).toHaveLength(1);
      else expect(podSpec(agents)!.volumes).toEqual([{ name: "credential", emptyDir: { sizeLimit: "16Mi" } }]);
    }
  });

  it("scales agents with a HorizontalPodAutoscaler on their Deployment, which then leaves replicas to it", async () => {
    const objects = await render("scale-ingress-tls-monitoring-values.yaml");
    const hpa = objects.find((o) => o.kind === "HorizontalPodAutoscaler") as
      | { spec: { scaleTargetRef: unknown; minReplicas: number } }
      | undefined;
    expect(hpa?.spec.scaleTargetRef).toEqual({ apiVersion: "apps/v1", kind: "Deployment", name: "t-throng-agent" });
    expect((find(objects, "Deployment", "agent") as { spec: { replicas?: number } }).spec.replicas).toBeUndefined();
    const fixed = await render("existing-secret-values.yaml", ["agents.replicas=4"]);
    expect(fixed.some((o) => o.kind === "HorizontalPodAutoscaler")).toBe(false);
    expect((find(fixed, "Deployment", "agent") as { spec: { replicas?: number } }).spec.replicas).toBe(4);
  });

  it("an agents-only release (controlPlane.enabled=false) renders only the agents and their token Secret, dialling agents.server", async () => {
    const objects = await render(AGENTS_ONLY);
    expect(objects.map((o) => `${o.kind}/${o.metadata.labels?.["app.kubernetes.io/component"]}`).sort()).toEqual([
      "Deployment/agent",
      "Secret/agent",
    ]);
    const container = podSpec(find(objects, "Deployment", "agent"))!.containers[0]!;
    expect(container.env!.find((e) => e.name === "THRONG_SERVER")?.value).toBe("https://throng.example.com");
    await expect(render(AGENTS_ONLY, ["agents.server="])).rejects.toThrow(/agents only\) needs agents.server/);
  });

  it("the Agents page's Kubernetes command, as shown, installs a valid agents-only release dialling the page's server", async () => {
    const server = "https://throng.example.com";
    const command = installMethods({
      token: "thr_enr_page_token",
      expiresAt: "2026-01-01T00:00:00.000Z",
      commands: { node: `node x connect --server ${server} --token t`, npx: "npx" },
    })!
      .find((method) => method.id === "kubernetes")!
      .text.split(" ");
    expect(command.slice(0, 4)).toEqual(["helm", "install", "throng-agents", "infra/helm/throng"]);
    const sets = command.slice(4).filter((word) => word !== "--set");
    const manifest = await helmRun([
      "template",
      command[2]!,
      path.join(root, command[3]!),
      "--namespace",
      "load",
      "--kube-version",
      KUBE_VERSION,
      ...sets.flatMap((s) => ["--set", s]),
    ]);
    const objects = parseManifests(manifest);
    expect(await schemaErrors(objects)).toEqual([]);
    expect((await strictFieldErrors(strictFields, manifest)).errors).toEqual([]);
    const agents = find(objects, "Deployment", "agent");
    expect((agents as { spec: { replicas: number } }).spec.replicas).toBe(2);
    const env = podSpec(agents)!.containers[0]!.env!;
    expect(env.find((e) => e.name === "THRONG_SERVER")?.value).toBe(server);
    const tokenRef = env.find((e) => e.name === "THRONG_ENROLMENT_TOKEN")?.valueFrom?.secretKeyRef;
    const secret = objects.find((o) => o.kind === "Secret" && o.metadata.name === tokenRef?.name) as
      | { stringData: Record<string, string> }
      | undefined;
    expect(secret?.stringData[tokenRef!.key]).toBe("thr_enr_page_token");
  });

  it("renders the api's PodDisruptionBudget exactly when the api has more than one replica", async () => {
    for (const replicas of [1, 2, 3]) {
      const objects = await render("defaults-values.yaml", [`api.replicas=${replicas}`]);
      expect(
        objects.some((o) => o.kind === "PodDisruptionBudget"),
        `api.replicas=${replicas}`,
      ).toBe(replicas > 1);
    }
  });

  it("the ingress sends /api and /agent to the api and / to the web, with TLS; api probes are on /health", async () => {
    const objects = await render("scale-ingress-tls-monitoring-values.yaml");
    const ingress = objects.find((o) => o.kind === "Ingress") as {
      spec: {
        tls: { hosts: string[] }[];
        rules: { http: { paths: { path: string; backend: { service: { name: string } } }[] } }[];
      };
    };
    expect(ingress.spec.rules[0]!.http.paths.map((p) => [p.path, p.backend.service.name])).toEqual([
      ["/api", "t-throng-api"],
      ["/agent", "t-throng-api"],
      ["/", "t-throng-web"],
    ]);
    expect(ingress.spec.tls[0]!.hosts).toEqual(["throng.example.com"]);
    const api = podSpec(find(objects, "Deployment", "api"))!.containers[0] as Container & {
      readinessProbe: { httpGet: { path: string } };
    };
    expect(api.readinessProbe.httpGet.path).toBe("/health");
    expect(api.env!.find((e) => e.name === "API_PUBLIC_URL")?.value).toBe("https://throng.example.com");
    const web = podSpec(find(objects, "Deployment", "web"))!.containers[0]!;
    expect(web.env!.find((e) => e.name === "API_URL")?.value).toBe("http://t-throng-api:4000");
  });

  it("refuses values that cannot work, saying what to set", async () => {
    const refusals: [string[], RegExp][] = [
      [[], /set secrets\.databaseUrl/],
      [
        ["secrets.databaseUrl=postgres://h/db", "secrets.redisUrl=redis://h", "secrets.authSecret=short"],
        /at least 32 characters|authSecret/,
      ],
      [["secrets.databaseUrl=postgres://h/db", "secrets.redisUrl=redis://h", "agents.enabled=true"], /enrolment token/],
      [
        ["secrets.databaseUrl=postgres://h/db", "secrets.redisUrl=redis://h", "agents.region=eu west"],
        /agents\/region/,
      ],
      [
        [
          "secrets.databaseUrl=postgres://h/db",
          "secrets.redisUrl=redis://h",
          "ingress.enabled=true",
          "ingress.tls.enabled=true",
        ],
        /ingress\.tls\.secretName/,
      ],
    ];
    for (const [set, message] of refusals) await expect(template([], set), set.join(" ")).rejects.toThrow(message);
  });

  it("the checks fail on a broken template: a wrong type fails the schema check, a misspelt field the strict check, bad YAML helm", async () => {
    const copy = await fs.mkdtemp(path.join(os.tmpdir(), "throng-chart-"));
    try {
      await fs.cp(chart, copy, { recursive: true });
      const defaults = path.join(chart, "ci", "defaults-values.yaml");
      const apiTemplate = path.join(copy, "templates", "api.yaml");
      const original = await fs.readFile(apiTemplate, "utf8");
      await fs.writeFile(
        apiTemplate,
        original.replace("replicas: {{ .Values.api.replicas }}", "replicas: {{ .Values.api.replicas | quote }}"),
      );
      expect(await schemaErrors(parseManifests(await template([defaults], [], copy)))).toEqual([
        expect.stringMatching(/^Deployment t-throng-api .*replicas must be integer/),
      ]);
      await fs.writeFile(apiTemplate, original.replace("periodSeconds: 5", "periodSecond: 5"));
      const misspelt = await strictFieldErrors(strictFields, await template([defaults], [], copy));
      expect(misspelt.errors).toEqual([
        expect.stringMatching(/^Deployment t-throng-api: .*unknown field "periodSecond"/),
      ]);
      await fs.writeFile(apiTemplate, original.replace("  template:\n", "  template:\n   broken: [\n"));
      await expect(template([defaults], [], copy)).rejects.toThrow(/YAML|yaml/);
    } finally {
      await fs.rm(copy, { recursive: true, force: true });
    }
  });
});
