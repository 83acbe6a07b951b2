import net from "node:net";
import tls from "node:tls";

/**
 * Sends one command (after AUTH/SELECT from the URL) and returns its reply as text. Just enough RESP
 * for PING checks and tests, so the orchestrator needs no Redis client before `npm install`.
 */
export async function redisCommand(url: string, args: string[], timeoutMs = 2_000): Promise<string | null> {
  const target = new URL(url);
  const commands: string[][] = [];
  if (target.password)
    commands.push(
      target.username
        ? ["AUTH", decodeURIComponent(target.username), decodeURIComponent(target.password)]
        : ["AUTH", decodeURIComponent(target.password)],
    );
  const db = target.pathname.replace("/", "");
  if (db) commands.push(["SELECT", db]);
  commands.push(args);

  const port = Number(target.port || 6379);
  const socket =
    target.protocol === "rediss:"
      ? tls.connect({ host: target.hostname, port, servername: target.hostname })
      : net.connect({ host: target.hostname, port });
  socket.setTimeout(timeoutMs);
  socket.write(commands.map(encode).join(""));
  let buffer = "";
  const replies: (string | null)[] = [];
  return new Promise((resolve, reject) => {
    socket.on("timeout", () =>
      socket.destroy(new Error(`no answer from Redis at ${target.host} within ${timeoutMs} ms`)),
    );
    socket.on("error", reject);
    socket.on("data", (chunk) => {
      buffer += chunk.toString("utf8");
      for (let parsed = parseReply(buffer); parsed; parsed = parseReply(buffer)) {
        buffer = parsed.rest;
        replies.push(parsed.reply);
      }
      if (replies.length < commands.length) return;
      socket.end();
      const failed = replies.find((reply) => reply?.startsWith("ERR:"));
      if (failed) reject(new Error(`Redis answered ${failed.slice(4)}`));
      else resolve(replies[replies.length - 1] ?? null);
    });
  });
}

function encode(args: string[]): string {
  return `*${args.length}\r\n${args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("")}`;
}

/** One reply off the front of `buffer`, or undefined until it has fully arrived. Errors become "ERR:...". */
function parseReply(buffer: string): { reply: string | null; rest: string } | undefined {
  const end = buffer.indexOf("\r\n");
  if (end < 0) return undefined;
  const kind = buffer[0];
  const head = buffer.slice(1, end);
  const rest = buffer.slice(end + 2);
  if (kind === "+" || kind === ":") return { reply: head, rest };
  if (kind === "-") return { reply: `ERR:${head}`, rest };
  if (kind === "$") {
    const length = Number(head);
    if (length < 0) return { reply: null, rest };
    // Byte length: fine for the ASCII values this helper is used with.
    if (rest.length < length + 2) return undefined;
    return { reply: rest.slice(0, length), rest: rest.slice(length + 2) };
  }
  return { reply: `ERR:a reply of type ${JSON.stringify(kind)}, which this helper does not read`, rest: "" };
}
