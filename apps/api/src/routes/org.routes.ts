import { z } from "zod";
import { IdParams, Me } from "@throng/protocol/api";
import {
  ApiTokenCreated,
  ApiTokenView,
  AuditEntry,
  ChangeRole,
  CreateApiToken,
  MemberView,
  Membership,
  OrgSettings,
  SwitchOrg,
} from "@throng/protocol/orgs";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";
import { browserOnly } from "./browser-only";

/** Members are named by their user id, which the auth library makes (text, not a UUID). */
const MemberParams = z.object({ id: z.string().min(1, "missing id").max(100) });

/** The signed-in user and their organisations: who they are, which organisation is active, its members. */
export async function orgRoutes(app: ZodFastify, { resolveIdentity, orgs }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/me", "org.read", {
    summary: "The caller and the organisation requests are scoped to",
    schema: { response: { 200: Me } },
    handler: ({ user, org, actor }) => ({
      user: user ?? { id: actor.userId, email: actor.label, name: actor.label },
      organization: org,
      role: actor.role,
    }),
  });

  app.get(
    "/api/orgs",
    {
      schema: { response: { 200: z.object({ orgs: z.array(Membership) }) } },
      config: {
        doc: {
          summary: "The organisations the user belongs to",
          access: "signed-in",
        },
      },
    },
    async (request) => {
      const { user, org } = await browserOnly(resolveIdentity, request);
      return { orgs: await orgs.memberships(user.id, org.id) };
    },
  );

  app.post(
    "/api/orgs/switch",
    {
      schema: { body: requestBody(SwitchOrg, "organisation switch") },
      config: {
        doc: {
          summary: "Make another of the user's organisations the active one",
          access: "signed-in",
          answers: [204],
          errors: [404],
        },
      },
    },
    async (request, reply) => {
      const { user, sessionId } = await browserOnly(resolveIdentity, request);
      await orgs.switchOrg(user.id, sessionId, request.body.orgId);
      return reply.status(204).send();
    },
  );

  member.get("/api/members", "org.read", {
    summary: "Members and their roles",
    schema: { response: { 200: z.object({ members: z.array(MemberView) }) } },
    handler: async ({ actor }) => ({ members: await orgs.members(actor) }),
  });

  member.patch("/api/members/:id", "member.manage", {
    summary: "Change a member's role",
    schema: { params: MemberParams, body: requestBody(ChangeRole, "role change") },
    answers: [204],
    errors: [404, 409],
    handler: ({ actor, request }) => orgs.changeRole(actor, request.params.id, request.body),
  });

  member.delete("/api/members/:id", "member.manage", {
    summary: "Remove a member",
    schema: { params: MemberParams },
    answers: [204],
    errors: [409],
    handler: ({ actor, request }) => orgs.removeMember(actor, request.params.id),
  });

  app.post(
    "/api/members/leave",
    {
      config: { doc: { summary: "Leave the active organisation", access: "signed-in", answers: [204], errors: [409] } },
    },
    async (request, reply) => {
      const { actor } = await browserOnly(resolveIdentity, request);
      await orgs.leave(actor);
      return reply.status(204).send();
    },
  );
}

/** An organisation's administration: API tokens, the audit log, the target allow-list and caps. */
export async function orgAdminRoutes(app: ZodFastify, { resolveIdentity, orgs, apiTokens, audit }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/tokens", "token.manage", {
    summary: "API tokens (never their secrets)",
    schema: { response: { 200: z.object({ tokens: z.array(ApiTokenView) }) } },
    handler: async ({ actor }) => ({ tokens: await apiTokens.list(actor) }),
  });

  member.post("/api/tokens", "token.manage", {
    summary: "Create an API token (shown once)",
    schema: { body: requestBody(CreateApiToken, "API token"), response: { 201: ApiTokenCreated } },
    answers: [201],
    handler: ({ actor, request }) => apiTokens.create(actor, request.body),
  });

  member.delete("/api/tokens/:id", "token.manage", {
    summary: "Revoke an API token",
    schema: { params: IdParams },
    answers: [204],
    handler: ({ actor, request }) => apiTokens.revoke(actor, request.params.id),
  });

  member.get("/api/audit", "audit.read", {
    summary: "The audit log of sensitive actions",
    schema: { response: { 200: z.object({ entries: z.array(AuditEntry) }) } },
    handler: async ({ actor }) => ({ entries: await audit.list(actor) }),
  });

  member.get("/api/org/settings", "settings.read", {
    summary: "Target allow-list and caps",
    schema: { response: { 200: OrgSettings } },
    handler: ({ actor }) => orgs.settings(actor),
  });

  member.put("/api/org/settings", "settings.manage", {
    summary: "Replace the target allow-list and caps",
    schema: { body: requestBody(OrgSettings, "settings"), response: { 200: OrgSettings } },
    handler: ({ actor, request }) => orgs.saveSettings(actor, request.body),
  });
}
