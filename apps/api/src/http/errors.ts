import type { FastifyError, FastifyInstance } from "fastify";
import { ThrongError, type ErrorBody, type ErrorCode } from "@throng/protocol/errors";

/** The HTTP channel's one mapping from error code to status. */
export const httpStatus: Record<ErrorCode, number> = {
  validation_failed: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
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

/** Every error leaves the API as an ErrorBody; unexpected ones are logged and never leak internals. */
export function registerErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error: FastifyError | ThrongError | Error, request, reply) => {
    if (error instanceof ThrongError) {
      return reply.status(httpStatus[error.code]).send(body(error.code, error.message, error.fields));
    }
    const status = "statusCode" in error && typeof error.statusCode === "number" ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      const code = "code" in error ? String(error.code) : "";
      const message = code === "FST_ERR_CTP_BODY_TOO_LARGE"
        ? `The request body is larger than this route takes (at most ${request.routeOptions.bodyLimit} bytes)`
        : code.startsWith("FST_ERR_CTP") ? `Request body is not valid: ${error.message}` : error.message;
      return reply.status(status).send(body("validation_failed", message));
    }
    request.log.error({ err: error }, "request failed");
    return reply.status(500).send(body("internal", `Internal error (request ${request.id}); the API log has the details`));
  });
  app.setNotFoundHandler((request, reply) => {
    reply.status(404).send(body("not_found", `No route ${request.method} ${request.url.split("?")[0]}`));
  });
}
