import { execFile } from "node:child_process";
import { promises as fs } from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import { findGo } from "../../agent/src/testing/go-toolchain";

const run = promisify(execFile);

/**
 * The pinned Helm: built from the Go module proxy (no release downloads), cached in .data/tools across runs; and
 * strict-fields (./strict-fields), the unknown-field check, built from its go.mod's pinned modules.
 */
export const HELM_MODULE = "helm.sh/helm/v3";
export const HELM_VERSION = "v3.22.0";

/** The cached binary's module version as `go version -m` reads it from the binary itself, or null. */
async function builtVersion(go: string, binary: string): Promise<string | null> {
  try {
    const { stdout } = await run(go, ["version", "-m", binary]);
    return new RegExp(`^\\s*mod\\s+${HELM_MODULE.replace(/\./g, "\\.")}\\s+(\\S+)`, "m").exec(stdout)?.[1] ?? null;
  } catch {
    return null;
  }
}

/** Go for the helm and strict-fields builds below. */
const findGoForHelm = () => findGo("the Helm chart test builds helm with Go", "1.24");

/**
 * Path of helm HELM_VERSION under `<root>/.data/tools`, built with `go install` (niced: other tests share the
 * cores) when missing or another version. Returns how long the build took (0 when cached).
 */
export async function ensureHelm(
  root: string,
  log: (line: string) => void = () => undefined,
): Promise<{ helm: string; buildMs: number }> {
  const tools = path.join(root, ".data", "tools");
  const helm = path.join(tools, "helm");
  const go = await findGoForHelm();
  if ((await builtVersion(go, helm)) === HELM_VERSION) return { helm, buildMs: 0 };
  await fs.mkdir(tools, { recursive: true });
  log(`building helm ${HELM_VERSION} from the Go module proxy into ${tools} (a few minutes, once)`);
  const started = Date.now();
  await run("nice", ["-n", "10", go, "install", `${HELM_MODULE}/cmd/helm@${HELM_VERSION}`], {
    env: { ...process.env, GOFLAGS: "-mod=mod", GOBIN: tools },
    maxBuffer: 16 << 20,
  });
  const version = await builtVersion(go, helm);
  if (version !== HELM_VERSION)
    throw new Error(`go install left helm ${version ?? "unreadable"} in ${tools}, not ${HELM_VERSION}`);
  return { helm, buildMs: Date.now() - started };
}

/**
 * Builds ./strict-fields into `<root>/.data/tools` (Go's build cache makes a rebuild take about a second; the first,
 * on a machine that has not built helm, compiles k8s.io/api).
 */
export async function buildStrictFields(root: string): Promise<string> {
  const output = path.join(root, ".data", "tools", "strict-fields");
  await run("nice", ["-n", "10", await findGoForHelm(), "build", "-o", output, "."], {
    cwd: path.join(root, "infra", "helm", "strict-fields"),
    maxBuffer: 16 << 20,
  });
  return output;
}
