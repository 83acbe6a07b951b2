import { z } from "zod";

/** Where a run's per-second series can go: Prometheus remote write (v1), or OTLP metrics over HTTP. */
export const MetricsSink = z.enum(["prometheus", "otlp"]);
export type MetricsSink = z.infer<typeof MetricsSink>;

/** Path parameters of /api/metrics-export/:sink. */
export const MetricsSinkParams = z.object({ sink: MetricsSink });
export type MetricsSinkParams = z.infer<typeof MetricsSinkParams>;

const headerName = z
  .string()
  .regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/, "a header name is letters, digits and - _ . (e.g. X-Scope-OrgID)");
const reservedHeaders = [
  "content-type",
  "content-encoding",
  "content-length",
  "host",
  "authorization",
  "x-prometheus-remote-write-version",
];

/**
 * PUT /api/metrics-export/:sink body (settings page). Secrets are write-only: a password or token left out keeps
 * the one stored (the page never sees it); `headers` left out keeps the stored headers, given replaces them.
 */
export const PutMetricsExportSink = z.object({
  url: z
    .string()
    .max(2000, "at most 2000 characters")
    .url("must be a full http(s) URL, e.g. https://prometheus.example.com/api/v1/write")
    .refine((url) => /^https?:\/\//i.test(url), "must start with http:// or https://"),
  auth: z
    .discriminatedUnion("kind", [
      z.object({ kind: z.literal("none") }),
      z.object({
        kind: z.literal("basic"),
        username: z.string().min(1, "give the user name").max(200),
        password: z.string().min(1).max(2000).optional(),
      }),
      z.object({ kind: z.literal("bearer"), token: z.string().min(1).max(4000).optional() }),
    ])
    .default({ kind: "none" }),
  headers: z
    .record(headerName, z.string().max(4000, "a header value is at most 4000 characters"))
    .refine((headers) => Object.keys(headers).length <= 20, "at most 20 headers")
    .refine(
      (headers) => !Object.keys(headers).some((name) => reservedHeaders.includes(name.toLowerCase())),
      `these headers are set by Throng: ${reservedHeaders.join(", ")} (use auth for Authorization)`,
    )
    .optional(),
});
export type PutMetricsExportSink = z.infer<typeof PutMetricsExportSink>;

/** One sink as GET /api/metrics-export shows it: secrets only as "set"/"not set", and the last delivery's outcome. */
export const MetricsExportSinkView = z.object({
  sink: MetricsSink,
  url: z.string(),
  auth: z.enum(["none", "basic", "bearer"]),
  username: z.string().nullable(),
  /** The password (basic) or token (bearer). */
  secret: z.enum(["set", "not set"]),
  /** Names only: header values may be keys. */
  headerNames: z.array(z.string()),
  lastSuccessAt: z.string().nullable(),
  lastError: z.string().nullable(),
  lastErrorAt: z.string().nullable(),
});
export type MetricsExportSinkView = z.infer<typeof MetricsExportSinkView>;

/** GET /api/metrics-export: the org's sinks, null where none is set up. */
export const MetricsExportSettings = z.object({
  prometheus: MetricsExportSinkView.nullable(),
  otlp: MetricsExportSinkView.nullable(),
});
export type MetricsExportSettings = z.infer<typeof MetricsExportSettings>;

/** A plan's `export` field: which of the org's sinks receive its runs' series (both off when left out). */
export const PlanExport = z.object({ prometheus: z.boolean().optional(), otlp: z.boolean().optional() });
export type PlanExport = z.infer<typeof PlanExport>;
