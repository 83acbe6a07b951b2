import { createServer } from "node:http";

/** A notification's target on loopback: each POST's path and JSON body, in the order they arrived. */
export interface WebhookReceiver {
  /** http://127.0.0.1:<port>, to which a channel's path is added. */
  url: string;
  received: { path: string; body: unknown }[];
  close(): Promise<void>;
}

/** Starts a loopback HTTP endpoint that records every request and answers 200 "ok" (the journeys' and tests' webhook). */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: WebhookReceiver["received"] = [];
  const server = createServer(async (request, response) => {
    let text = "";
    for await (const chunk of request) text += chunk;
    received.push({ path: request.url ?? "/", body: JSON.parse(text) });
    response.end("ok");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
