// Organisation secrets (issue 27 §4): values a plan names as {{secrets.NAME}} instead of holding them in its text.
// The control plane keeps them sealed and never answers them back; an agent gets a shard's own, and the standalone
// agent reads them from its environment or a file. plan-secrets.ts finds, fills and masks them in a plan.
import { z } from "zod";

/** A secret's name: as an environment variable's (THRONG_SECRET_<NAME> for the standalone agent). */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** The longest value a secret holds (a token, a password, a short key; not a file). */
export const MAX_SECRET_BYTES = 8192;
/** The most secrets an organisation keeps. */
export const MAX_SECRETS = 200;

export const SecretName = z
  .string()
  .regex(
    SECRET_NAME_PATTERN,
    "a secret's name is letters, digits and _, not starting with a digit, at most 64 characters, e.g. REDIS_PASSWORD",
  );
export type SecretName = z.infer<typeof SecretName>;

/** Path parameters of /api/secrets/:name. */
export const SecretParams = z.object({ name: SecretName });
export type SecretParams = z.infer<typeof SecretParams>;

/** PUT /api/secrets/:name body (Settings → Secrets): creates the secret or replaces its value. */
export const PutSecret = z.object({
  value: z
    .string()
    .min(1, "give the secret's value")
    .refine(
      (value) => new TextEncoder().encode(value).length <= MAX_SECRET_BYTES,
      `a secret's value is at most ${MAX_SECRET_BYTES} bytes`,
    ),
});
export type PutSecret = z.infer<typeof PutSecret>;

/** One secret as the API shows it: its name and who set it when, never its value. */
export const SecretView = z.object({
  name: SecretName,
  createdAt: z.string(),
  createdBy: z.string().nullable(),
  updatedAt: z.string(),
  updatedBy: z.string().nullable(),
});
export type SecretView = z.infer<typeof SecretView>;

/** GET /api/secrets: the organisation's secrets by name. */
export const SecretList = z.object({ secrets: z.array(SecretView) });
export type SecretList = z.infer<typeof SecretList>;

/** Names to values: what an agent is given for one shard or trial, or reads from its environment. */
export const SecretValues = z.record(SecretName, z.string().max(MAX_SECRET_BYTES * 4));
export type SecretValues = z.infer<typeof SecretValues>;
