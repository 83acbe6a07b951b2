import type {
  ContextConfigDefault,
  FastifyReply,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteOptions,
} from "fastify";
import type { ResolveFastifyReplyReturnType } from "fastify/types/type-provider";
import type { Action } from "@throng/protocol/orgs";
import type { Identity, ResolveIdentity } from "./actor";
import type { RouteDoc, RouteSchema } from "./openapi";
import type { ZodFastify, ZodTypeProvider } from "./route-schema";

/** What a member route's doc may add to its summary and permission: its answers, its errors, a media type. */
type MemberRouteDoc = Pick<RouteDoc, "answers" | "errors" | "produces">;

/**
 * The options of a route that a member of the organisation calls (session cookie or API token) with `permission`:
 * its `schema` (parsed once, before the handler) and the `config.doc` the OpenAPI document, the caller-first hook and
 * the isolation tests read. One declaration, so every member route says the same things the same way.
 */
function memberRoute<const S extends RouteSchema>(
  permission: Action,
  summary: string,
  schema: S,
  doc: MemberRouteDoc = {},
) {
  const routeDoc: RouteDoc = { summary, access: "user", permission, ...doc };
  return { schema, config: { doc: routeDoc } };
}

/** A member route's options: what `memberRoute` declares, and a body limit where the route needs its own. */
type MemberRouteOptions<S extends RouteSchema> = ReturnType<typeof memberRoute<S>> & { bodyLimit?: number };

type MemberRequest<S extends RouteSchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  S,
  ZodTypeProvider
>;
type MemberReply<S extends RouteSchema> = FastifyReply<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  ContextConfigDefault,
  S,
  ZodTypeProvider
>;

/** What a member route's handler is handed: the caller's identity (its actor, for the one core call that checks the
 * permission), and Fastify's request and reply, typed by the route's schema. */
export type MemberCall<S extends RouteSchema> = Identity & { request: MemberRequest<S>; reply: MemberReply<S> };
type MemberAnswer<S extends RouteSchema> = ResolveFastifyReplyReturnType<ZodTypeProvider, S, RouteGenericInterface>;
/** A member route's handler; its answer is typed by `schema.response`. */
export type MemberHandler<S extends RouteSchema> = (call: MemberCall<S>) => MemberAnswer<S>;

/**
 * A member route as a routes file declares it, beside its method, URL and permission: its summary, its schema (which
 * types the handler), what its doc adds, and its handler, named like Fastify's own route options.
 */
export interface MemberRouteSpec<S extends RouteSchema> extends MemberRouteDoc {
  summary: string;
  schema: S;
  /** Where the route needs a body limit of its own. */
  bodyLimit?: number;
  handler: MemberHandler<S>;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Registers member routes on `app`, each handled with its caller resolved: every member route starts by asking who
 * calls, so it is asked here once (actor.ts resolves one request once). A route whose doc declares one answer
 * (`answers: [204]`) is answered with that status, so the doc and the reply cannot disagree. A routes file declares
 * a route as `member.get(url, permission, { summary, schema, handler })`.
 */
export function memberRoutes(app: ZodFastify, resolveIdentity: ResolveIdentity) {
  const add = <S extends RouteSchema>(
    method: Method,
    url: string,
    options: MemberRouteOptions<S>,
    handler: MemberHandler<S>,
  ) => {
    // The validator (route-schema.ts) has parsed each part of the request by `options.schema` before the handler,
    // so the request is what MemberRequest<S> says; Fastify's own types cannot follow a generic S through here.
    const answers = options.config.doc.answers;
    const success = answers?.length === 1 ? answers[0] : undefined;
    const route: RouteOptions = {
      ...options,
      method,
      url,
      handler: async (request, reply) => {
        const answer = await handler({
          ...(await resolveIdentity(request)),
          request: request as MemberRequest<S>,
          reply: reply as unknown as MemberReply<S>,
        });
        // A route that declares one success (201, 202, 204) answers with it: the handler returns what to send.
        return success === undefined || reply.sent ? answer : reply.status(success).send(answer);
      },
    };
    app.route(route);
  };
  const register =
    (method: Method) =>
    <const S extends RouteSchema>(url: string, permission: Action, spec: MemberRouteSpec<S>): void => {
      const { summary, schema, bodyLimit, handler, ...doc } = spec;
      const options = memberRoute(permission, summary, schema, doc);
      add(method, url, bodyLimit === undefined ? options : { ...options, bodyLimit }, handler);
    };
  return {
    get: register("GET"),
    post: register("POST"),
    put: register("PUT"),
    patch: register("PATCH"),
    delete: register("DELETE"),
  };
}
