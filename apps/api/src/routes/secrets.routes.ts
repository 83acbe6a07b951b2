import { PutSecret, SecretList, SecretParams, SecretView } from "@throng/protocol/secrets";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoute } from "../http/member-route";

/** Organisation secrets (Settings → Secrets): names and who set them when; a value goes in and never comes back. Transport only. */
export async function secretRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, secrets } = deps;

  app.get(
    "/api/secrets",
    memberRoute("secret.manage", "The organisation's secrets by name, with who set them when (never a value)", {
      response: { 200: SecretList },
    }),
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { secrets: await secrets.list(actor) };
    },
  );

  app.put(
    "/api/secrets/:name",
    memberRoute(
      "secret.manage",
      "Create a secret (201) or replace its value (200); plans name it as {{secrets.NAME}}. The value is never answered back",
      { params: SecretParams, body: requestBody(PutSecret, "secret"), response: { 200: SecretView, 201: SecretView } },
      { answers: [200, 201], errors: [409] },
    ),
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      const { secret, created } = await secrets.put(actor, request.params.name, request.body);
      return reply.status(created ? 201 : 200).send(secret);
    },
  );

  app.delete(
    "/api/secrets/:name",
    memberRoute(
      "secret.manage",
      "Delete a secret; plans that name it are refused at start until it is set again",
      { params: SecretParams },
      { answers: [204] },
    ),
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await secrets.remove(actor, request.params.name);
      return reply.status(204).send();
    },
  );
}
