// A small TCP balancer in front of the api replicas: each connection (HTTP, SSE or an agent's WebSocket) goes to
// the next replica in turn, skipping one that refuses. TCP rather than HTTP so upgrades and streams pass untouched.
//   BALANCER_HOST (default 127.0.0.1), BALANCER_PORT (default 4000), BALANCER_UPSTREAMS=host:port,host:port
import net from "node:net";

function parseEnv(env) {
  const port = Number(env.BALANCER_PORT ?? "4000");
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    throw new Error(`BALANCER_PORT=${env.BALANCER_PORT} is not a port number (1-65535)`);
  const upstreams = (env.BALANCER_UPSTREAMS ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const match = /^(.+):(\d{1,5})$/.exec(entry);
      if (!match) throw new Error(`BALANCER_UPSTREAMS: "${entry}" is not host:port`);
      return { host: match[1], port: Number(match[2]) };
    });
  if (!upstreams.length)
    throw new Error("set BALANCER_UPSTREAMS to the api replicas, e.g. 127.0.0.1:4001,127.0.0.1:4002");
  return { host: env.BALANCER_HOST || "127.0.0.1", port, upstreams };
}

const config = parseEnv(process.env);
let next = 0;

/** Connects to the replicas in turn from the next one, resolving with the first that accepts. */
function connectUpstream(tried = 0) {
  if (tried === config.upstreams.length) return Promise.reject(new Error("no api replica accepts connections"));
  const upstream = config.upstreams[next];
  next = (next + 1) % config.upstreams.length;
  return new Promise((resolve, reject) => {
    const socket = net.connect(upstream);
    socket.once("connect", () => resolve(socket));
    socket.once("error", reject);
  }).catch(() => connectUpstream(tried + 1));
}

const server = net.createServer((client) => {
  client.pause();
  client.on("error", () => undefined);
  let clientClosed = false;
  client.once("close", () => (clientClosed = true));
  connectUpstream().then(
    (upstream) => {
      // A client that left while we dialled: nothing to pipe, and the upstream socket must not linger.
      if (clientClosed) return void upstream.destroy();
      upstream.removeAllListeners("error");
      // An error (a reset, a replica stopping) ends the other side too; orderly ends travel through the pipes.
      upstream.on("error", () => client.destroy());
      client.on("error", () => upstream.destroy());
      client.pipe(upstream).pipe(client);
      client.resume();
    },
    (error) => {
      console.error(`[balancer] ${error.message}`);
      client.destroy();
    },
  );
});
server.listen(config.port, config.host, () => {
  const to = config.upstreams.map((u) => `${u.host}:${u.port}`).join(", ");
  console.log(`[balancer] ${config.host}:${config.port} -> ${to}`);
});
// Open streams would hold close() up; the clients reconnect to another replica or a restarted balancer.
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => process.exit(0));
