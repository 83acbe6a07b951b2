import { z } from "zod";
import { IdParams, TokenParams } from "@throng/protocol/api";
import {
  AcceptInvitation,
  CreateInvitation,
  InvitationCreated,
  InvitationPreview,
  InvitationView,
} from "@throng/protocol/orgs";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";
import { browserOnly } from "./browser-only";

/** Invitations to an organisation: made, listed and revoked by its managers, previewed and accepted by the invited. */
export async function invitationRoutes(app: ZodFastify, { resolveIdentity, orgs }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.post("/api/invitations", "member.manage", {
    summary: "Create an invitation link (shown once)",
    schema: {
      body: requestBody(CreateInvitation, "invitation", { optional: true }),
      response: { 201: InvitationCreated },
    },
    answers: [201],
    handler: ({ actor, request }) => orgs.createInvitation(actor, request.body),
  });

  member.get("/api/invitations", "member.manage", {
    summary: "Pending invitations",
    schema: { response: { 200: z.object({ invitations: z.array(InvitationView) }) } },
    handler: async ({ actor }) => ({ invitations: await orgs.invitations(actor) }),
  });

  member.delete("/api/invitations/:id", "member.manage", {
    summary: "Revoke a pending invitation",
    schema: { params: IdParams },
    answers: [204],
    handler: ({ actor, request }) => orgs.revokeInvitation(actor, request.params.id),
  });

  app.get(
    "/api/invitations/preview/:token",
    {
      schema: { params: TokenParams, response: { 200: InvitationPreview } },
      config: {
        doc: {
          summary: "Which organisation and role an invitation link is for",
          access: "public",
        },
      },
    },
    async (request) => {
      return orgs.previewInvitation(request.params.token);
    },
  );

  app.post(
    "/api/invitations/accept",
    {
      schema: { body: requestBody(AcceptInvitation, "invitation"), response: { 200: z.object({ orgId: z.string() }) } },
      config: {
        doc: {
          summary: "Join the organisation of an invitation link",
          access: "signed-in",
          errors: [404, 409],
        },
      },
    },
    async (request) => {
      const { user, sessionId } = await browserOnly(resolveIdentity, request);
      const { orgId } = await orgs.acceptInvitation(user, request.body);
      await orgs.switchOrg(user.id, sessionId, orgId);
      return { orgId };
    },
  );
}
