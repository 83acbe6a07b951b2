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

/** How a route's body errors name it ("Invalid plan (target.url: ...)"), and whether the body may be left out. */
interface BodyNaming {
  what: string;
  optional: boolean;
}
const bodyNamings = new WeakMap<z.ZodType, BodyNaming>();

/**
 * A route's `schema.body`: the protocol schema itself, registered with the words its 400 names the body by (the words
 * core used when it parsed bodies) and, with `optional`, read as `{}` when the request has no body.
 */
export function requestBody<T extends z.ZodType>(schema: T, what: string, options: { optional?: boolean } = {}): T {
  bodyNamings.set(schema, { what, optional: options.optional ?? false });
  return schema;
}

/** What `requestBody` registered for a schema; a body schema declared without it is named "request body". */
export function bodyNaming(schema: z.ZodType): BodyNaming {
  return bodyNamings.get(schema) ?? { what: "request body", optional: false };
}

/**
 * Route schemas are the shared zod schemas: a request part is parsed once, before the handler, and the parsed value
 * replaces the raw one (defaults filled, strings coerced); a failure is the usual validation_failed naming every field.
 * Answers are written as JSON, as without a schema: `schema.response` types the handler's answer (tsc) and feeds the
 * OpenAPI document, which the fuzzer checks answers against; it is not parsed at run time, as that would walk every
 * answer (a run's series, a report) once more on every request, nor used to filter or coerce what is sent.
 */
export function registerZodSchemas(app: FastifyInstance) {
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const zod = schema as z.ZodType;
    if (httpPart !== "body") return validator(zod, PART_WORDS[httpPart ?? ""] ?? "input", (data) => data);
    const { what, optional } = bodyNaming(zod);
    // Fastify hands a missing body over as null (a JSON `null` body of an optional-body route is refused before, in
    // route-input.ts): it is read as no body, as core read `request.body` before routes declared their bodies.
    return validator(zod, what, (data) => data ?? (optional ? {} : undefined));
  });
  app.setSerializerCompiler(() => (data: unknown) => JSON.stringify(data));
}

function validator(schema: z.ZodType, what: string, read: (data: unknown) => unknown) {
  return (data: unknown) => {
    try {
      return { value: parseOrThrow(schema, read(data), what) };
    } catch (error) {
      return { error: error as ThrongError };
    }
  };
}
