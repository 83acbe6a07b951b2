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
import { memberRoute, memberRoutes } from "../http/member-route";
import { browserOnly } from "./browser-only";

/** Invitations to an organisation: made, listed and revoked by its managers, previewed and accepted by the invited. */
export async function invitationRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, orgs } = deps;
  const member = memberRoutes(app, resolveIdentity);

  member.post(
    "/api/invitations",
    memberRoute(
      "member.manage",
      "Create an invitation link (shown once)",
      {
        body: requestBody(CreateInvitation, "invitation", { optional: true }),
        response: { 201: InvitationCreated },
      },
      { answers: [201] },
    ),
    ({ actor, request }) => orgs.createInvitation(actor, request.body),
  );

  member.get(
    "/api/invitations",
    memberRoute("member.manage", "Pending invitations", {
      response: { 200: z.object({ invitations: z.array(InvitationView) }) },
    }),
    async ({ actor }) => ({ invitations: await orgs.invitations(actor) }),
  );

  member.delete(
    "/api/invitations/:id",
    memberRoute("member.manage", "Revoke a pending invitation", { params: IdParams }, { answers: [204] }),
    ({ actor, request }) => orgs.revokeInvitation(actor, request.params.id),
  );

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
