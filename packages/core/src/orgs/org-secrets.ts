import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import type { PlanSpec } from "@throng/protocol/plan";
import { secretNamesUsed, secretsUsed } from "@throng/protocol/plan-secrets";
import { MAX_SECRETS, type PutSecret, SecretName, type SecretView } from "@throng/protocol/secrets";
import type { SecretRepo, SecretRow } from "@throng/db/repos/secrets";
import type { Sealer } from "../metrics-export/sealed-secrets";
import type { AuditLog } from "./audit";
import { authorize, type Actor } from "./permissions";

const toView = (row: SecretRow): SecretView => ({
  name: row.name,
  createdAt: row.createdAt.toISOString(),
  createdBy: row.createdBy,
  updatedAt: row.updatedAt.toISOString(),
  updatedBy: row.updatedBy,
});

const WHERE_TO_ADD = "an admin or owner adds it under Settings → Secrets";

/**
 * Refuses a plan that names a secret the organisation does not have, naming each field and secret: at save a
 * validation error on the field (400), at start a conflict (409: the plan was valid, the organisation changed).
 */
export async function assertPlanSecretsExist(
  secrets: Pick<SecretRepo, "existing">,
  orgId: string,
  spec: PlanSpec,
  when: "save" | "start",
  pathPrefix = "",
): Promise<void> {
  const uses = secretsUsed(spec).map((use) => ({ ...use, path: `${pathPrefix}${use.path}` }));
  if (uses.length === 0) return;
  const have = new Set(await secrets.existing(orgId, secretNamesUsed(spec)));
  const missing = uses.filter((use) => !have.has(use.name));
  if (missing.length === 0) return;
  const fields = missing.map((use) => ({
    path: use.path,
    message: `{{secrets.${use.name}}} is not a secret of this organisation: ${WHERE_TO_ADD}`,
  }));
  const names = [...new Set(missing.map((use) => `{{secrets.${use.name}}}`))].join(", ");
  const first = missing[0]!;
  if (when === "save")
    throw new ThrongError("validation_failed", `Invalid plan (${first.path}: ${fields[0]!.message})`, fields);
  throw new ThrongError(
    "conflict",
    `The plan uses ${names} (first in ${first.path}), which this organisation does not have: ${WHERE_TO_ADD}, then start the run again`,
    fields,
  );
}

/**
 * Organisation secrets (Settings → Secrets): names and who set them when; values sealed at rest and never answered
 * back. The gateway opens the ones a shard or trial uses, to hand them to its agent (`valuesFor`).
 */
export function createOrgSecretService(deps: { secrets: SecretRepo; sealer: Sealer; audit: AuditLog }) {
  const { secrets, sealer, audit } = deps;
  return {
    async list(actor: Actor): Promise<SecretView[]> {
      authorize(actor, "secret.manage");
      return (await secrets.list(actor.orgId)).map(toView);
    },

    /** Creates the secret or replaces its value; the audit log names it, never its value. */
    async put(actor: Actor, name: unknown, input: PutSecret): Promise<{ secret: SecretView; created: boolean }> {
      authorize(actor, "secret.manage");
      const secretName = parseOrThrow(SecretName, name, "secret name");
      const { value } = input;
      const exists = (await secrets.existing(actor.orgId, [secretName])).length > 0;
      if (!exists && (await secrets.count(actor.orgId)) >= MAX_SECRETS) {
        throw new ThrongError(
          "conflict",
          `This organisation already has ${MAX_SECRETS} secrets, the most it may keep: delete one it no longer uses first`,
        );
      }
      const { row, created } = await secrets.put(actor.orgId, secretName, sealer.seal(value), actor.label);
      await audit.record(actor.orgId, actor.label, created ? "secret.created" : "secret.replaced", secretName, {
        name: secretName,
      });
      return { secret: toView(row), created };
    },

    async remove(actor: Actor, name: unknown): Promise<void> {
      authorize(actor, "secret.manage");
      const secretName = parseOrThrow(SecretName, name, "secret name");
      if (!(await secrets.remove(actor.orgId, secretName)))
        throw new ThrongError("not_found", `No secret ${secretName} in this organisation`);
      await audit.record(actor.orgId, actor.label, "secret.deleted", secretName, { name: secretName });
    },

    /**
     * The gateway, before a run assignment or a trial goes to its agent: the values of the secrets `plan` uses,
     * opened, and the names it could not give (deleted since the run started, or sealed with another key). The agent
     * refuses the shard naming those, so nothing is sent with a placeholder in place of a value.
     */
    async valuesFor(orgId: string, plan: PlanSpec): Promise<{ values: Record<string, string>; unavailable: string[] }> {
      const names = secretNamesUsed(plan);
      if (names.length === 0) return { values: {}, unavailable: [] };
      const values: Record<string, string> = {};
      for (const { name, valueSealed } of await secrets.sealedValues(orgId, names)) {
        try {
          values[name] = sealer.open(valueSealed);
        } catch {
          // Sealed under another key (AUTH_SECRET or SECRETS_KEY changed): it must be set again.
        }
      }
      return { values, unavailable: names.filter((name) => values[name] === undefined) };
    },
  };
}
export type OrgSecretService = ReturnType<typeof createOrgSecretService>;
