import { z } from "zod";
import { AgentLabels, AgentView, CreateEnrolmentToken, EnrolmentTokenCreated, IdParams } from "@throng/protocol/api";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** The fleet: enrolment tokens, inventory, labels, revocation. */
export async function agentRoutes(app: ZodFastify, { resolveIdentity, fleet }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.post("/api/enrolment-tokens", "agent.enrol", {
    summary: "Create an enrolment token (shown once)",
    schema: {
      body: requestBody(CreateEnrolmentToken, "enrolment token request", { optional: true }),
      response: { 201: EnrolmentTokenCreated },
    },
    answers: [201],
    errors: [429],
    handler: ({ actor, request }) => fleet.createEnrolmentToken(actor, request.body),
  });

  member.get("/api/agents", "agent.read", {
    summary: "The fleet inventory",
    schema: { response: { 200: z.object({ agents: z.array(AgentView) }) } },
    handler: async ({ actor }) => ({ agents: await fleet.agents(actor) }),
  });

  member.put("/api/agents/:id/labels", "agent.manage", {
    summary: "Replace an agent's labels",
    schema: { params: IdParams, body: requestBody(AgentLabels, "labels"), response: { 200: AgentView } },
    handler: ({ actor, request }) => fleet.setLabels(actor, request.params.id, request.body),
  });

  member.post("/api/agents/:id/revoke", "agent.manage", {
    summary: "Revoke an agent: disconnected now, refused after",
    schema: { params: IdParams },
    answers: [204],
    handler: ({ actor, request }) => fleet.revoke(actor, request.params.id),
  });
}
