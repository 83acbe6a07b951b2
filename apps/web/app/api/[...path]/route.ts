import { proxyToApi } from "../../../lib/server/proxy";

// Every /api/* call from the browser goes through here to the API, read at request time.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

export const GET = proxyToApi;
export const HEAD = proxyToApi;
export const POST = proxyToApi;
export const PUT = proxyToApi;
export const PATCH = proxyToApi;
export const DELETE = proxyToApi;
export const OPTIONS = proxyToApi;
