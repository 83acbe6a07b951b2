import { z } from "zod";
import { AgentLabels, AgentView, CreateEnrolmentToken, EnrolmentTokenCreated, IdParams } from "@throng/protocol/api";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoute, memberRoutes } from "../http/member-route";

/** The fleet: enrolment tokens, inventory, labels, revocation. */
export async function agentRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, fleet } = deps;
  const member = memberRoutes(app, resolveIdentity);

  member.post(
    "/api/enrolment-tokens",
    memberRoute(
      "agent.enrol",
      "Create an enrolment token (shown once)",
      {
        body: requestBody(CreateEnrolmentToken, "enrolment token request", { optional: true }),
        response: { 201: EnrolmentTokenCreated },
      },
      { answers: [201], errors: [429] },
    ),
    ({ actor, request }) => fleet.createEnrolmentToken(actor, request.body),
  );

  member.get(
    "/api/agents",
    memberRoute("agent.read", "The fleet inventory", { response: { 200: z.object({ agents: z.array(AgentView) }) } }),
    async ({ actor }) => ({ agents: await fleet.agents(actor) }),
  );

  member.put(
    "/api/agents/:id/labels",
    memberRoute("agent.manage", "Replace an agent's labels", {
      params: IdParams,
      body: requestBody(AgentLabels, "labels"),
      response: { 200: AgentView },
    }),
    ({ actor, request }) => fleet.setLabels(actor, request.params.id, request.body),
  );

  member.post(
    "/api/agents/:id/revoke",
    memberRoute(
      "agent.manage",
      "Revoke an agent: disconnected now, refused after",
      { params: IdParams },
      { answers: [204] },
    ),
    ({ actor, request }) => fleet.revoke(actor, request.params.id),
  );
}
