import type { FastifyInstance } from "fastify";
import { z } from "zod";
import { ErrorBody } from "@throng/protocol/errors";
import type { Action } from "@throng/protocol/orgs";
import { THRONG_VERSION } from "@throng/protocol/version";
import { addRequestRules } from "./request-rules";
import { bodyNaming } from "./route-schema";

/**
 * Who may call a route: `public` (no credentials), `user` (session cookie or API token, org-scoped),
 * `signed-in` (a session, any org), `agent` (the agent socket's own credentials).
 */
export type Access = "public" | "user" | "signed-in" | "agent";

/**
 * What each route declares in `config.doc`; with the schemas of its `schema` option (params, querystring, body), the
 * OpenAPI document, the input hook and the isolation tests read it.
 */
export interface RouteDoc {
  summary: string;
  access: Access;
  /** The permission the core call checks (documentation; core enforces it). */
  permission?: Action;
  /** Media type of a success that is not JSON (CSV, a script, a file); its body is then described as a string. */
  produces?: string;
  /** Success statuses when not just 200 (201 created, 204 no content). */
  answers?: number[];
  /** Error statuses beyond the ones every route of its kind can answer (see `errorStatuses`). */
  errors?: number[];
  /** The errors come from a library with its own body (Better Auth): declared without the ErrorBody schema. */
  foreignErrors?: boolean;
}

/** What a route declares in its `schema` option: parsed once by the zod validator (route-schema.ts) before the handler. */
export interface RouteSchema {
  /** Path parameters: a bad id is a 400, never a database error. */
  params?: z.ZodObject;
  /** Query parameters, checked like `params`. */
  querystring?: z.ZodObject;
  /** The JSON body, declared with `requestBody` (the words its errors use; whether it may be left out). */
  body?: z.ZodType;
  /**
   * Each answer's schema by status (200, 201, and a 503 that is not an ErrorBody): it feeds the document and types the
   * handler's answer; answers are written as JSON without checking them (route-schema.ts says why).
   */
  response?: Record<number, z.ZodType>;
}

export interface DocumentedRoute extends RouteDoc {
  method: string;
  url: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** The body may be left out (read as `{}`). */
  optionalBody?: boolean;
  response?: Record<number, z.ZodType>;
}

/** Collects every route registered with `config: { doc }`; routes without one fail the boundary tests. */
export function createRouteRegistry(app: FastifyInstance) {
  const routes: DocumentedRoute[] = [];
  const undocumented: string[] = [];
  app.addHook("onRoute", (options) => {
    const methods = [options.method].flat().filter((m) => m !== "HEAD");
    const doc = (options.config as { doc?: RouteDoc } | undefined)?.doc;
    const { params, querystring: query, body, response } = (options.schema ?? {}) as RouteSchema;
    const declared = {
      ...(params ? { params } : {}),
      ...(query ? { query } : {}),
      ...(body ? { body, optionalBody: bodyNaming(body).optional } : {}),
      ...(response ? { response } : {}),
    };
    for (const method of methods) {
      if (doc) routes.push({ ...doc, ...declared, method, url: options.url });
      else undocumented.push(`${method} ${options.url}`);
    }
  });
  return { routes, undocumented };
}

/**
 * The methods declared for a concrete path, for a 405's Allow header: those of a static route with exactly this
 * path when there is one (as the document lists it: /api/plans/try is not /api/plans/{id}), else of every pattern
 * it matches.
 */
export function allowedMethods(routes: readonly DocumentedRoute[], path: string): string[] {
  const exact = staticMethods(routes, path);
  if (exact.length) return exact;
  const methods = new Set<string>();
  for (const route of routes) if (urlPattern(route.url).test(path)) methods.add(route.method);
  return [...methods].sort();
}

/** The methods of the static (parameterless) routes whose path is exactly `path`. */
export function staticMethods(routes: readonly DocumentedRoute[], path: string): string[] {
  return [
    ...new Set(routes.filter((route) => route.url === path && !/[:*]/.test(route.url)).map((route) => route.method)),
  ].sort();
}

const patterns = new Map<string, RegExp>();
function urlPattern(url: string): RegExp {
  let pattern = patterns.get(url);
  if (!pattern) {
    const source = url
      .split(/(:\w+|\*)/)
      .map((part) =>
        part === "*" ? ".*" : part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
      )
      .join("");
    pattern = new RegExp(`^${source}$`);
    patterns.set(url, pattern);
  }
  return pattern;
}

function jsonSchema(schema: z.ZodType, use: "request" | "response" = "response") {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any",
    // Requests carry rules the zod schema's JSON Schema leaves out (request-rules.ts); answers are described as they are.
    ...(use === "request"
      ? { override: ({ zodSchema, jsonSchema: node }) => addRequestRules(zodSchema, node as Record<string, unknown>) }
      : {}),
  }) as Record<string, unknown>;
  return rest;
}

const STATUS_TEXT: Record<number, string> = {
  200: "OK",
  201: "Created",
  204: "No content",
  400: "The input is not valid: `error.fields` names each bad field",
  401: "No session cookie or API token, or an expired one",
  403: "Signed in, but not allowed to do this",
  404: "No such thing in the caller's organisation",
  405: "Not with this method",
  409: "Conflicts with the current state",
  413: "The body is larger than this route takes",
  415: "The body is not JSON",
  422: "Refused by the auth provider",
  429: "Too many requests: wait Retry-After seconds",
  503: "A dependency is not available (the database restarting, a missing package): try again, after Retry-After seconds where given",
  504: "Waited too long for an agent's answer",
};

/** Every error status a route can answer: the ones its kind implies and the ones it declares. */
export function errorStatuses(route: DocumentedRoute): number[] {
  // 503 on every route: the database stopped or restarting (http/errors.ts), with Retry-After.
  const statuses = new Set<number>([400, 503, ...(route.errors ?? [])]);
  if (route.access === "user" || route.access === "signed-in") for (const s of [401, 403]) statuses.add(s);
  if (route.params) statuses.add(404);
  // Fastify reads a body on any method but GET/HEAD: too large or not JSON is refused before the handler.
  if (route.method !== "GET") for (const s of [413, 415]) statuses.add(s);
  return [...statuses].sort();
}

function parameters(route: DocumentedRoute) {
  const list: Record<string, unknown>[] = [];
  for (const [where, schema] of [
    ["path", route.params],
    ["query", route.query],
  ] as const) {
    if (!schema) continue;
    const json = jsonSchema(schema, "request") as { properties?: Record<string, unknown>; required?: string[] };
    for (const [name, property] of Object.entries(json.properties ?? {})) {
      list.push({
        name,
        in: where,
        required: where === "path" || (json.required ?? []).includes(name),
        schema: property,
      });
    }
  }
  // A wildcard route (Better Auth's endpoints) is one path parameter for whatever follows its prefix.
  if (route.url.endsWith("*"))
    list.push({ name: "path", in: "path", required: true, schema: { type: "string", minLength: 1 } });
  return list;
}

function successResponse(route: DocumentedRoute, status: number) {
  const schema = route.response?.[status];
  if (schema) return { content: { "application/json": { schema: jsonSchema(schema) } } };
  if (route.produces) return { content: { [route.produces]: { schema: { type: "string" } } } };
  return {};
}

const SECURITY: Record<Access, Record<string, string[]>[]> = {
  public: [],
  user: [{ session: [] }, { apiToken: [] }],
  "signed-in": [{ session: [] }],
  agent: [],
};

function operation(route: DocumentedRoute) {
  const responses: Record<string, unknown> = {};
  for (const status of route.answers ?? [200]) {
    responses[status] = {
      description: STATUS_TEXT[status] ?? "OK",
      ...(status === 204 ? {} : successResponse(route, status)),
    };
  }
  for (const status of errorStatuses(route)) {
    if (route.response?.[status]) continue; // an answer of its own (the health check's 503), not an ErrorBody
    const content = route.foreignErrors
      ? {}
      : { content: { "application/json": { schema: { $ref: "#/components/schemas/ErrorBody" } } } };
    responses[status] = { description: STATUS_TEXT[status] ?? "Error", ...content };
  }
  const params = parameters(route);
  return {
    summary: route.summary,
    operationId: `${route.method.toLowerCase()} ${route.url}`,
    "x-access": route.access,
    ...(route.permission ? { "x-permission": route.permission } : {}),
    ...(params.length ? { parameters: params } : {}),
    security: SECURITY[route.access],
    ...(route.body
      ? {
          requestBody: {
            required: !route.optionalBody,
            content: { "application/json": { schema: jsonSchema(route.body, "request") } },
          },
        }
      : {}),
    responses,
  };
}

/** OpenAPI 3.1 from the registry: paths, who may call them, parameters, bodies and answers from the shared schemas. */
export function openApiDocument(routes: readonly DocumentedRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.url.replace(/:(\w+)/g, "{$1}").replace(/\*$/, "{path}");
    paths[path] ??= {};
    paths[path]![route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: "3.1.0",
    info: { title: "Throng API", version: THRONG_VERSION },
    components: {
      securitySchemes: {
        session: { type: "apiKey", in: "cookie", name: "better-auth.session_token" },
        apiToken: { type: "http", scheme: "bearer", description: "thr_api_... from Settings → API tokens" },
      },
      schemas: { ErrorBody: jsonSchema(ErrorBody) },
    },
    paths,
  };
}
