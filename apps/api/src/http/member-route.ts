import type { Action } from "@throng/protocol/orgs";
import type { RouteDoc, RouteSchema } from "./openapi";

/** What a member route's doc may add to its summary and permission: its answers, its errors, a media type. */
type MemberRouteDoc = Pick<RouteDoc, "answers" | "errors" | "produces">;

/**
 * The options of a route that a member of the organisation calls (session cookie or API token) with `permission`:
 * its `schema` (parsed once, before the handler) and the `config.doc` the OpenAPI document, the caller-first hook and
 * the isolation tests read. One declaration, so every member route says the same things the same way.
 */
export function memberRoute<const S extends RouteSchema>(
  permission: Action,
  summary: string,
  schema: S,
  doc: MemberRouteDoc = {},
) {
  const routeDoc: RouteDoc = { summary, access: "user", permission, ...doc };
  return { schema, config: { doc: routeDoc } };
}
