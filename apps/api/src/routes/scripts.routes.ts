import { z } from "zod";
import {
  SCRIPT_BUNDLE_MAX_BYTES,
  ScriptList,
  ScriptSha256,
  ScriptSummary,
  ScriptView,
  UploadScript,
} from "@throng/protocol/script-bundle";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/**
 * Upper-case hex is taken: hashes are compared (and stored) lower-case. The pattern before the transform is what
 * the OpenAPI document shows, so a fuzzer knows "0" is not a hash.
 */
const ScriptParams = z.object({
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be a SHA-256: 64 lower-case hex digits")
    .transform((s) => s.toLowerCase())
    .pipe(ScriptSha256),
});

/**
 * Room for the largest bundle as JSON: escaping (quotes, backslashes, newlines) can double a source's bytes. A source
 * over SCRIPT_BUNDLE_MAX_BYTES inside this gets UploadScript's 400 naming `source`; a bigger body gets 413.
 */
export const SCRIPT_UPLOAD_BODY_LIMIT = 2 * SCRIPT_BUNDLE_MAX_BYTES + 64 * 1024;

/** Script bundles: transport only — resolve the caller, one core call, answer. */
export async function scriptRoutes(app: ZodFastify, { resolveIdentity, scripts }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/scripts", "plan.read", {
    summary: "List script bundles, newest first",
    schema: { response: { 200: ScriptList } },
    handler: async ({ actor }) => ({ scripts: await scripts.list(actor) }),
  });

  member.post("/api/scripts", "plan.write", {
    summary: "Upload a script bundle (201; the same bytes again answer 200 with the stored one)",
    schema: { body: requestBody(UploadScript, "script"), response: { 200: ScriptSummary, 201: ScriptSummary } },
    answers: [200, 201],
    bodyLimit: SCRIPT_UPLOAD_BODY_LIMIT,
    handler: async ({ actor, request, reply }) => {
      const { script, created } = await scripts.upload(actor, request.body);
      return reply.status(created ? 201 : 200).send(script);
    },
  });

  member.get("/api/scripts/:sha256", "plan.read", {
    summary: "Read a script bundle with its source",
    schema: { params: ScriptParams, response: { 200: ScriptView } },
    handler: ({ actor, request }) => scripts.get(actor, request.params.sha256),
  });
}
