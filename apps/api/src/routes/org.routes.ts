import { z } from "zod";
import { ThrongError, parseOrThrow } from "@throng/protocol/errors";
import { IdParams, Me, TokenParams } from "@throng/protocol/api";
import {
  AcceptInvitation,
  ApiTokenCreated,
  ApiTokenView,
  AuditEntry,
  ChangeRole,
  CreateApiToken,
  CreateInvitation,
  InvitationCreated,
  InvitationPreview,
  InvitationView,
  MemberView,
  Membership,
  OrgSettings,
  SwitchOrg,
} from "@throng/protocol/orgs";
import type { ApiDeps } from "../services";
import type { ZodFastify } from "../http/route-schema";

/** Members are named by their user id, which the auth library makes (text, not a UUID). */
const MemberParams = z.object({ id: z.string().min(1, "missing id").max(100) });

/** The signed-in user and their organisations: members, roles, invitations, API tokens, audit log, settings. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the plugin lists its routes, each a few lines over one core call.
export async function orgRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, orgs, apiTokens, audit } = deps;
  const browserOnly = async (request: Parameters<typeof resolveIdentity>[0]) => {
    const identity = await resolveIdentity(request);
    if (!identity.user || !identity.sessionId)
      throw new ThrongError("forbidden", "Sign in in the browser for this; API tokens cannot do it");
    return { ...identity, user: identity.user, sessionId: identity.sessionId };
  };

  app.get(
    "/api/me",
    {
      config: {
        doc: {
          summary: "The caller and the organisation requests are scoped to",
          access: "user",
          permission: "org.read",
          response: Me,
        },
      },
    },
    async (request): Promise<Me> => {
      const { user, org, actor } = await resolveIdentity(request);
      return {
        user: user ?? { id: actor.userId, email: actor.label, name: actor.label },
        organization: org,
        role: actor.role,
      };
    },
  );

  app.get(
    "/api/orgs",
    {
      config: {
        doc: {
          summary: "The organisations the user belongs to",
          access: "signed-in",
          response: z.object({ orgs: z.array(Membership) }),
        },
      },
    },
    async (request) => {
      const { user, org } = await browserOnly(request);
      return { orgs: await orgs.memberships(user.id, org.id) };
    },
  );

  app.post(
    "/api/orgs/switch",
    {
      config: {
        doc: {
          summary: "Make another of the user's organisations the active one",
          access: "signed-in",
          answers: [204],
          errors: [404],
          body: SwitchOrg,
        },
      },
    },
    async (request, reply) => {
      const { user, sessionId } = await browserOnly(request);
      const { orgId } = parseOrThrow(SwitchOrg, request.body, "organisation switch");
      await orgs.switchOrg(user.id, sessionId, orgId);
      return reply.status(204).send();
    },
  );

  app.get(
    "/api/members",
    {
      config: {
        doc: {
          summary: "Members and their roles",
          access: "user",
          permission: "org.read",
          response: z.object({ members: z.array(MemberView) }),
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { members: await orgs.members(actor) };
    },
  );

  app.patch(
    "/api/members/:id",
    {
      schema: { params: MemberParams },
      config: {
        doc: {
          summary: "Change a member's role",
          access: "user",
          answers: [204],
          errors: [404, 409],
          permission: "member.manage",
          body: ChangeRole,
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await orgs.changeRole(actor, request.params.id, request.body);
      return reply.status(204).send();
    },
  );

  app.delete(
    "/api/members/:id",
    {
      schema: { params: MemberParams },
      config: {
        doc: { summary: "Remove a member", access: "user", answers: [204], errors: [409], permission: "member.manage" },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await orgs.removeMember(actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/members/leave",
    {
      config: { doc: { summary: "Leave the active organisation", access: "signed-in", answers: [204], errors: [409] } },
    },
    async (request, reply) => {
      const { actor } = await browserOnly(request);
      await orgs.leave(actor);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/invitations",
    {
      config: {
        doc: {
          summary: "Create an invitation link (shown once)",
          access: "user",
          optionalBody: true,
          answers: [201],
          permission: "member.manage",
          body: CreateInvitation,
          response: InvitationCreated,
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(201).send(await orgs.createInvitation(actor, request.body));
    },
  );

  app.get(
    "/api/invitations",
    {
      config: {
        doc: {
          summary: "Pending invitations",
          access: "user",
          permission: "member.manage",
          response: z.object({ invitations: z.array(InvitationView) }),
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { invitations: await orgs.invitations(actor) };
    },
  );

  app.delete(
    "/api/invitations/:id",
    {
      schema: { params: IdParams },
      config: {
        doc: { summary: "Revoke a pending invitation", access: "user", answers: [204], permission: "member.manage" },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await orgs.revokeInvitation(actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    "/api/invitations/preview/:token",
    {
      schema: { params: TokenParams },
      config: {
        doc: {
          summary: "Which organisation and role an invitation link is for",
          access: "public",
          response: InvitationPreview,
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
      config: {
        doc: {
          summary: "Join the organisation of an invitation link",
          access: "signed-in",
          errors: [404, 409],
          response: z.object({ orgId: z.string() }),
          body: AcceptInvitation,
        },
      },
    },
    async (request) => {
      const { user, sessionId } = await browserOnly(request);
      const { orgId } = await orgs.acceptInvitation(user, request.body);
      await orgs.switchOrg(user.id, sessionId, orgId);
      return { orgId };
    },
  );

  app.get(
    "/api/tokens",
    {
      config: {
        doc: {
          summary: "API tokens (never their secrets)",
          access: "user",
          permission: "token.manage",
          response: z.object({ tokens: z.array(ApiTokenView) }),
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { tokens: await apiTokens.list(actor) };
    },
  );

  app.post(
    "/api/tokens",
    {
      config: {
        doc: {
          summary: "Create an API token (shown once)",
          access: "user",
          answers: [201],
          permission: "token.manage",
          body: CreateApiToken,
          response: ApiTokenCreated,
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(201).send(await apiTokens.create(actor, request.body));
    },
  );

  app.delete(
    "/api/tokens/:id",
    {
      schema: { params: IdParams },
      config: { doc: { summary: "Revoke an API token", access: "user", answers: [204], permission: "token.manage" } },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await apiTokens.revoke(actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.get(
    "/api/audit",
    {
      config: {
        doc: {
          summary: "The audit log of sensitive actions",
          access: "user",
          permission: "audit.read",
          response: z.object({ entries: z.array(AuditEntry) }),
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { entries: await audit.list(actor) };
    },
  );

  app.get(
    "/api/org/settings",
    {
      config: {
        doc: {
          summary: "Target allow-list and caps",
          access: "user",
          permission: "settings.read",
          response: OrgSettings,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return orgs.settings(actor);
    },
  );

  app.put(
    "/api/org/settings",
    {
      config: {
        doc: {
          summary: "Replace the target allow-list and caps",
          access: "user",
          permission: "settings.manage",
          body: OrgSettings,
          response: OrgSettings,
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return orgs.saveSettings(actor, request.body);
    },
  );
}
