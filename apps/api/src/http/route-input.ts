import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ThrongError, type FieldError } from "@throng/protocol/errors";
import type { z } from "zod";
import { staticMethods, type DocumentedRoute, type RouteSchema } from "./openapi";
import { bodyNaming } from "./route-schema";

const LONE_SURROGATE = "contains invalid Unicode (a lone surrogate)";
const NUL = "contains a NUL character (U+0000), which cannot be stored";
/** With the u flag a well-formed pair is one code point, so only an unpaired half matches. */
const UNPAIRED = /\p{Cs}/u;

/** What is wrong with a text PostgreSQL would refuse (text and jsonb take neither), or null when it is storable. */
function unstorable(text: string): string | null {
  if (UNPAIRED.test(text)) return LONE_SURROGATE;
  return text.includes("\u0000") ? NUL : null;
}

/** Every string (and object key) in parsed input that PostgreSQL would refuse, with its dotted path. */
export function unstorableText(value: unknown, path: string[] = [], found: FieldError[] = []): FieldError[] {
  if (found.length >= 20) return found; // enough to name the problem; a hostile body may hold millions
  if (typeof value === "string") {
    const problem = unstorable(value);
    if (problem) found.push({ path: path.join(".") || "(root)", message: problem });
  } else if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) unstorableText(item, [...path, String(index)], found);
  } else if (value && typeof value === "object") {
    for (const [key, item] of Object.entries(value)) {
      const problem = unstorable(key);
      if (problem)
        found.push({
          // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what PostgreSQL cannot store, so it is replaced.
          path: [...path, key.replace(/\p{Cs}|\u0000/gu, "\uFFFD")].join("."),
          message: `its name ${problem}`,
        });
      unstorableText(item, [...path, key], found);
    }
  }
  return found;
}

function refuseUnstorableText(what: string, value: unknown) {
  const fields = unstorableText(value);
  const first = fields[0];
  if (first)
    throw new ThrongError(
      "validation_failed",
      `Invalid ${what} (${first.path}: ${first.message}); send well-formed text`,
      fields,
    );
}

/**
 * What of a body can reach storage: what the route's schema keeps (an object's unknown properties are stripped, so a
 * NUL there is harmless and the document does not forbid it); all of it when the body does not parse (it is refused
 * either way) or the route declares no schema (Better Auth's).
 */
function storedPart(schema: z.ZodType | undefined, body: unknown): unknown {
  if (!schema || body === undefined) return body;
  const parsed = schema.safeParse(body);
  return parsed.success ? parsed.data : body;
}

/**
 * A parametric route reached with a path that is really a static sibling (PUT /api/plans/try reaches
 * PUT /api/plans/:id): the document lists that path with its own methods, so this is a 405, not a bad id.
 */
function refuseShadowedPath(request: FastifyRequest, reply: FastifyReply, routes: readonly DocumentedRoute[]) {
  if (!/[:*]/.test(request.routeOptions.url ?? "")) return;
  const allowed = staticMethods(routes, request.url.split("?")[0]!);
  if (!allowed.length) return;
  reply.header("allow", allowed.join(", "));
  throw new ThrongError(
    "method_not_allowed",
    `${request.url.split("?")[0]} does not take ${request.method}; it takes ${allowed.join(", ")}`,
  );
}

/**
 * Checks every request's input before its schemas: text PostgreSQL would refuse (a lone surrogate or a NUL, which used
 * to surface as a 500) in the body, query string or path. The route's `schema` (params, querystring, body) is parsed
 * next, once, by the zod validator (route-schema.ts), so no id reaches a database column unchecked and handlers use the
 * parsed values.
 */
export function registerRouteInputValidation(app: FastifyInstance, routes: readonly DocumentedRoute[]) {
  app.addHook("preValidation", async (request: FastifyRequest, reply: FastifyReply) => {
    refuseShadowedPath(request, reply, routes);
    refuseUnstorableText("path", request.params);
    refuseUnstorableText("query string", request.query);
    const bodySchema = (request.routeOptions.schema as RouteSchema | undefined)?.body;
    refuseUnstorableText("request body", storedPart(bodySchema, request.body));
    // A body that may be left out is read as `{}` when missing; JSON `null` is a body, and not an object.
    if (bodySchema && bodyNaming(bodySchema).optional && request.body === null) {
      throw new ThrongError(
        "validation_failed",
        "Invalid request body ((root): expected an object); send a JSON object, or no body for the defaults",
        [{ path: "(root)", message: "expected an object" }],
      );
    }
  });
}
