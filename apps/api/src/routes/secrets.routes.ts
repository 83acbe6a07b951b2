import { PutSecret, SecretList, SecretParams, SecretView } from "@throng/protocol/secrets";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** Organisation secrets (Settings → Secrets): names and who set them when; a value goes in and never comes back. Transport only. */
export async function secretRoutes(app: ZodFastify, { resolveIdentity, secrets }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/secrets", "secret.manage", {
    summary: "The organisation's secrets by name, with who set them when (never a value)",
    schema: { response: { 200: SecretList } },
    handler: async ({ actor }) => ({ secrets: await secrets.list(actor) }),
  });

  member.put("/api/secrets/:name", "secret.manage", {
    summary:
      "Create a secret (201) or replace its value (200); plans name it as {{secrets.NAME}}. The value is never answered back",
    schema: {
      params: SecretParams,
      body: requestBody(PutSecret, "secret"),
      response: { 200: SecretView, 201: SecretView },
    },
    answers: [200, 201],
    errors: [409],
    handler: async ({ actor, request, reply }) => {
      const { secret, created } = await secrets.put(actor, request.params.name, request.body);
      return reply.status(created ? 201 : 200).send(secret);
    },
  });

  member.delete("/api/secrets/:name", "secret.manage", {
    summary: "Delete a secret; plans that name it are refused at start until it is set again",
    schema: { params: SecretParams },
    answers: [204],
    handler: ({ actor, request }) => secrets.remove(actor, request.params.name),
  });
}
