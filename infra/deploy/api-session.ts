// A signed-up user talking to the deployed stack through the web's /api proxy, as a browser would: cookies kept,
// the web's origin sent. Every answer is checked against its schema in @throng/protocol.
import type { z } from "zod";

export interface ApiSession {
  email: string;
  call<T extends z.ZodType>(method: string, path: string, schema: T, body?: unknown): Promise<z.infer<T>>;
}

async function request(webUrl: string, cookie: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${webUrl}${path}`, {
    method,
    headers: {
      origin: webUrl,
      ...(cookie ? { cookie } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  return { response, text };
}

export async function signUp(webUrl: string): Promise<ApiSession> {
  const email = `deploy-${crypto.randomUUID().slice(0, 8)}@example.com`;
  const { response, text } = await request(webUrl, "", "POST", "/api/auth/sign-up/email", {
    name: "Deploy test",
    email,
    password: "correct-horse-battery",
  });
  if (response.status !== 200) throw new Error(`sign-up answered ${response.status}: ${text.slice(0, 300)}`);
  const cookie = response.headers
    .getSetCookie()
    .map((c) => c.split(";")[0])
    .join("; ");
  if (!cookie) throw new Error("sign-up set no session cookie");
  return {
    email,
    async call(method, path, schema, body) {
      const answer = await request(webUrl, cookie, method, path, body);
      if (!answer.response.ok)
        throw new Error(`${method} ${path} answered ${answer.response.status}: ${answer.text.slice(0, 300)}`);
      const parsed = schema.safeParse(JSON.parse(answer.text));
      if (!parsed.success)
        throw new Error(
          `${method} ${path}: unexpected answer (${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")})`,
        );
      return parsed.data;
    },
  };
}
