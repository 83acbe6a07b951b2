import { z } from "zod";
import { AgentLabels, AgentView, CreateEnrolmentToken, EnrolmentTokenCreated, IdParams } from "@throng/protocol/api";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";

/** The fleet: enrolment tokens, inventory, labels, revocation. */
export async function agentRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, fleet } = deps;

  app.post(
    "/api/enrolment-tokens",
    {
      schema: {
        body: requestBody(CreateEnrolmentToken, "enrolment token request", { optional: true }),
        response: { 201: EnrolmentTokenCreated },
      },
      config: {
        doc: {
          summary: "Create an enrolment token (shown once)",
          access: "user",
          answers: [201],
          errors: [429],
          permission: "agent.enrol",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(201).send(await fleet.createEnrolmentToken(actor, request.body));
    },
  );

  app.get(
    "/api/agents",
    {
      schema: { response: { 200: z.object({ agents: z.array(AgentView) }) } },
      config: {
        doc: {
          summary: "The fleet inventory",
          access: "user",
          permission: "agent.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { agents: await fleet.agents(actor) };
    },
  );

  app.put(
    "/api/agents/:id/labels",
    {
      schema: { params: IdParams, body: requestBody(AgentLabels, "labels"), response: { 200: AgentView } },
      config: {
        doc: {
          summary: "Replace an agent's labels",
          access: "user",
          permission: "agent.manage",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      return fleet.setLabels(actor, id, request.body);
    },
  );

  app.post(
    "/api/agents/:id/revoke",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Revoke an agent: disconnected now, refused after",
          access: "user",
          answers: [204],
          permission: "agent.manage",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      const { id } = request.params;
      await fleet.revoke(actor, id);
      return reply.status(204).send();
    },
  );
}
