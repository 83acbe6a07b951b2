import type {
  FastifyInstance,
  FastifyTypeProvider,
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
} from "fastify";
import type { z } from "zod";
import { parseOrThrow, type ThrongError } from "@throng/protocol/errors";

/**
 * Types a route's `request.params` and `request.query` from the zod schemas in its `schema` option, so a handler uses
 * what validation handed over instead of parsing again.
 */
export interface ZodTypeProvider extends FastifyTypeProvider {
  validator: this["schema"] extends z.ZodType ? z.output<this["schema"]> : unknown;
  serializer: this["schema"] extends z.ZodType ? z.input<this["schema"]> : unknown;
}

/** The Fastify instance a route plugin registers on: schemas are zod, their parsed values typed. */
export type ZodFastify = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

/** How an error names the part of the request that failed, as the API has always answered. */
const PART_WORDS: Record<string, string> = {
  params: "path parameter",
  querystring: "query string",
  body: "request body",
  headers: "header",
};

/**
 * Route schemas are the shared zod schemas: a request part is parsed once, before the handler, and the parsed value
 * replaces the raw one (defaults filled, strings coerced); a failure is the usual validation_failed naming every field.
 * Answers are written as JSON, as without a schema: a response schema documents, it does not filter.
 */
export function registerZodSchemas(app: FastifyInstance) {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const what = PART_WORDS[httpPart ?? ""] ?? "input";
    return (data: unknown) => {
      try {
        return { value: parseOrThrow(schema as z.ZodType, data, what) };
      } catch (error) {
        return { error: error as ThrongError };
      }
    };
  });
  app.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data));
}
