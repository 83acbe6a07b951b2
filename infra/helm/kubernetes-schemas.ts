import { execFile } from "node:child_process";
import { parseAllDocuments } from "yaml";

/** One object of a rendered manifest. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // Each kind's own shape: a test casts it to the few fields it checks, the schemas check the rest.
  spec?: unknown;
  [field: string]: unknown;
}

/** The objects of `helm template` output (empty documents, such as a template rendered to nothing, dropped). */
export function parseManifests(text: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const document of parseAllDocuments(text)) {
    if (document.errors.length) throw new Error(`rendered YAML does not parse: ${document.errors[0]!.message}`);
    const object = document.toJS() as KubeObject | null;
    if (object) objects.push(object);
  }
  return objects;
}

/** Kubernetes' own schemas from kubernetes-models, plus the Prometheus Operator's for the ServiceMonitor. */
async function modelsOf(apiVersion: string): Promise<Record<string, unknown>> {
  if (apiVersion.startsWith("monitoring.coreos.com/"))
    return import(`@kubernetes-models/prometheus-operator/${apiVersion}`);
  return import(`kubernetes-models/${apiVersion}`);
}

/** Each object checked against its kind's schema: one line per object that fails, naming it and the first error. */
export async function schemaErrors(objects: readonly KubeObject[]): Promise<string[]> {
  const errors: string[] = [];
  for (const object of objects) {
    const where = `${object.kind ?? "?"} ${object.metadata?.name ?? "?"} (${object.apiVersion ?? "no apiVersion"})`;
    const models = await modelsOf(object.apiVersion).catch(() => ({}) as Record<string, unknown>);
    const Model = models[object.kind] as (new (data: unknown) => { validate(): void }) | undefined;
    if (!Model) {
      errors.push(`${where}: no schema for this apiVersion and kind`);
      continue;
    }
    try {
      new Model(object).validate();
    } catch (error) {
      errors.push(`${where}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return errors;
}

/**
 * Fields the Kubernetes types do not have (a misspelt `periodSecond`), which the schemas above let through: the
 * strict-fields tool decodes each object into its Go type refusing unknown fields. Kinds it has no type for come
 * back in `unchecked` ("apiVersion kind name").
 */
export function strictFieldErrors(tool: string, manifest: string): Promise<{ errors: string[]; unchecked: string[] }> {
  return new Promise((resolve, reject) => {
    const child = execFile(tool, [], { maxBuffer: 16 << 20 }, (error, stdout) => {
      const lines = stdout.split("\n").filter(Boolean);
      const errors = lines.filter((line) => line.startsWith("ERROR ")).map((line) => line.slice(6));
      if (error && !errors.length) return reject(error);
      resolve({
        errors,
        unchecked: lines.filter((line) => line.startsWith("UNCHECKED ")).map((line) => line.slice(10)),
      });
    });
    child.stdin!.end(manifest);
  });
}
