// A refusal the dashboard expects (a form the API turns down, "signed out" on /api/me) is an answer, not a failure of
// the page: the browser logs every HTTP 4xx as a console error, so the dashboard's own requests ask the web's /api
// proxy to answer 4xx as 200 with the real status in a header, and the fetch below restores it. The API, its
// contract and every other client see the status as it is.

/** Sent by the dashboard's requests: "answer a refusal as 200 and say its status in QUIET_STATUS". */
export const QUIET_REQUEST = "x-throng-quiet-refusal";
/** The refusal's real status, on the proxy's 200 answer. */
export const QUIET_STATUS = "x-throng-status";

/** What the proxy answers the browser for the API's `status`: the same, or 200 for a refusal the dashboard asked to hear quietly. */
export function quietStatus(status: number, asked: boolean): { status: number; refused: number | null } {
  return asked && status >= 400 && status < 500 ? { status: 200, refused: status } : { status, refused: null };
}

/** fetch for the dashboard's API calls: asks for quiet refusals and gives callers the real status back. */
export async function quietFetch(input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set(QUIET_REQUEST, "1");
  const response = await fetch(input, { ...init, headers });
  const refused = Number(response.headers.get(QUIET_STATUS));
  if (!refused) return response;
  // A Response made here is not a network load: the browser logs nothing for it.
  return new Response(await response.arrayBuffer(), {
    status: refused,
    statusText: response.statusText,
    headers: response.headers,
  });
}
