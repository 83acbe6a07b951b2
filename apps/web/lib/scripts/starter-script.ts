// The script "New script" starts from. It runs on the agent's Node 20 worker thread with no dependencies, against
// the context agent/src/scripts/script-clients.ts gives each client (docs/protocols.md, "Scripted clients").
// lib/scripts/starter-script.test.ts loads this text as a module and runs it against a real TCP echo server.

export const STARTER_SCRIPT_NAME = "tcp-line-client.mjs";

/** The metrics the starter records, as a plan's `scenario.metrics` declares them. */
export const STARTER_METRICS = [
  { name: "connect-ms", kind: "histogram" },
  { name: "reply-ms", kind: "histogram" },
  { name: "replies", kind: "counter" },
] as const;

export const STARTER_SCRIPT = `import net from "node:net";

// One TCP connection per client to the plan's target. The connect is timed as "connect-ms"; then every
// parameters.intervalMs (default 1000) the client sends parameters.message (default "PING") and a CRLF, and times
// the next line the server answers as "reply-ms" and counts it in "replies". A line that does not start with
// parameters.expect (if given, e.g. "+PONG" for Redis) counts as an error. Replies are taken in order.

/** Host and port of the plan's target: a TCP or UDP target's own, or a WebSocket URL's. */
function address(target) {
  if (target.url) {
    const url = new URL(target.url);
    return { host: url.hostname, port: Number(url.port || (url.protocol === "wss:" ? 443 : 80)) };
  }
  return { host: target.host, port: Number(target.port) };
}

export default async function client(ctx) {
  const message = String(ctx.parameters.message ?? "PING");
  const expect = ctx.parameters.expect === undefined ? undefined : String(ctx.parameters.expect);
  const intervalMs = Number(ctx.parameters.intervalMs ?? 1000);
  const { host, port } = address(ctx.target);

  const socket = net.connect(port, host);
  socket.setNoDelay(true);
  socket.setEncoding("utf8");
  ctx.signal.addEventListener("abort", () => socket.destroy(), { once: true });

  // Sent lines not yet answered, oldest first: each line the server sends answers the oldest.
  const waiting = [];
  let buffered = "";
  socket.on("data", (chunk) => {
    buffered += chunk;
    for (let end = buffered.indexOf("\\n"); end >= 0; end = buffered.indexOf("\\n")) {
      const line = buffered.slice(0, end).replace(/\\r$/, "");
      buffered = buffered.slice(end + 1);
      waiting.shift()?.resolve(line);
    }
  });
  let failed = false;
  socket.on("error", (error) => {
    failed = true;
    if (!ctx.signal.aborted) ctx.error(error);
  });
  // A close after an error is that error's; one without is the server hanging up.
  socket.on("close", () => {
    if (!ctx.signal.aborted && !failed) ctx.error(new Error("the server closed the connection"));
    for (const reply of waiting.splice(0)) reply.reject(new Error("closed"));
  });

  try {
    await ctx.measure("connect-ms", new Promise((resolve, reject) => {
      socket.once("connect", resolve);
      socket.once("close", () => reject(new Error("closed before connecting")));
    }));
  } catch {
    return; // the socket's error is counted already
  }

  ctx.every(intervalMs, () => {
    const reply = new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    socket.write(message + "\\r\\n");
    return ctx.measure("reply-ms", reply).then(
      (line) => {
        if (expect !== undefined && !line.startsWith(expect)) ctx.error(new Error("unexpected reply: " + line.slice(0, 80)));
        else ctx.count("replies");
      },
      () => {}, // a socket error, a close or a timeoutMs is counted where it happens
    );
  });
}
`;
