import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ThrongError, type ErrorBody, type ErrorCode } from "@throng/protocol/errors";
import { isDatabaseUnavailable } from "@throng/db/unavailable";
import { allowedMethods, type DocumentedRoute } from "./openapi";

/** What a 503 for an unavailable database asks a client to wait before trying again. */
const DATABASE_RETRY_AFTER_SEC = 5;

/** The HTTP channel's one mapping from error code to status. */
export const httpStatus: Record<ErrorCode, number> = {
  validation_failed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  no_agent_online: 409,
  unsupported_version: 426,
  rate_limited: 429,
  unavailable: 503,
  timeout: 504,
  internal: 500,
};

function body(code: ErrorCode, message: string, fields?: ErrorBody["error"]["fields"]): ErrorBody {
  return { error: { code, message, ...(fields ? { fields } : {}) } };
}

/** Above every path parameter's declared maximum (tokens: 200), so a too-long one gets its schema's 400. */
export const MAX_PARAM_LENGTH = 256;

/** The router's own refusals (bad percent-encoding, an over-long path parameter) as ErrorBody 400s, not Fastify's shape. */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const message =
    error.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? `A path parameter is longer than ${MAX_PARAM_LENGTH} characters`
      : error.code === "FST_ERR_BAD_URL"
        ? "The URL is not valid (bad percent-encoding in the path)"
        : error.message;
  return reply.status(400).send(body("validation_failed", message));
}

/** No route for this method and path: 405 with Allow when the path has other methods, else 404. */
function answerUnrouted(request: FastifyRequest, reply: FastifyReply, routes: readonly DocumentedRoute[]) {
  const path = request.url.split("?")[0]!;
  const allowed = allowedMethods(routes, path);
  if (allowed.length) {
    reply.header("allow", allowed.join(", "));
    return reply
      .status(405)
      .send(body("method_not_allowed", `${path} does not take ${request.method}; it takes ${allowed.join(", ")}`));
  }
  return reply.status(404).send(body("not_found", `No route ${request.method} ${path}`));
}

/**
 * Every error leaves the API as an ErrorBody; unexpected ones are logged and never leak internals. A known path
 * asked with a method it does not have answers 405 with Allow (from the documented routes), an unknown one 404.
 */
export function registerErrorHandler(app: FastifyInstance, routes: readonly DocumentedRoute[]) {
  app.setErrorHandler((error: FastifyError | ThrongError | Error, request, reply) => {
    // A method the path does not have (QUERY, TRACE ...) can fail body parsing before the not-found handler runs.
    if (request.is404) return answerUnrouted(request, reply, routes);
    if (error instanceof ThrongError) {
      return reply.status(httpStatus[error.code]).send(body(error.code, error.message, error.fields));
    }
    const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      const code = "code" in error ? String(error.code) : "";
      const message =
        code === "FST_ERR_CTP_BODY_TOO_LARGE"
          ? `The request body is larger than this route takes (at most ${request.routeOptions.bodyLimit} bytes)`
          : code.startsWith("FST_ERR_CTP")
            ? `Request body is not valid: ${error.message}`
            : error.message;
      return reply.status(status).send(body("validation_failed", message));
    }
    if (isDatabaseUnavailable(error)) {
      // Mapped once here for every route: a stopped or restarting PostgreSQL is a wait, not an internal error.
      request.log.warn({ err: error.message, url: request.url }, "database unavailable");
      reply.header("retry-after", String(DATABASE_RETRY_AFTER_SEC));
      return reply
        .status(503)
        .send(
          body(
            "unavailable",
            `The database is unavailable (stopped, restarting or unreachable); try again in ${DATABASE_RETRY_AFTER_SEC} s`,
          ),
        );
    }
    request.log.error({ err: error }, "request failed");
    return reply
      .status(500)
      .send(body("internal", `Internal error (request ${request.id}); the API log has the details`));
  });
  app.setNotFoundHandler((request, reply) => answerUnrouted(request, reply, routes));
}
