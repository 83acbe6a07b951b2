// What the bare Node clients (node-echo.mjs, node-move.mjs) share: their arguments, the WebSocket upgrade and the
// measured window. Plain JavaScript, so that plain `node` runs them with nothing else loaded.
import { createHash, randomBytes } from "node:crypto";

/** `arg("port")`: the value after `--port` on the command line, or `fallback`. */
export function argReader(args = process.argv.slice(2)) {
  return (name, fallback) => {
    const at = args.indexOf(`--${name}`);
    return at === -1 ? fallback : args[at + 1];
  };
}

/**
 * What both clients read from the command line: where the target listens, how many clients (`clients` by default)
 * and the measured window (`seconds` by default, after a 2 s warm-up).
 */
export function loadArgs(arg, defaults) {
  return {
    host: arg("host", "127.0.0.1"),
    port: Number(arg("port")),
    path: arg("path", "/ws"),
    clients: Number(arg("clients", defaults.clients)),
    seconds: Number(arg("seconds", defaults.seconds)),
    warmup: Number(arg("warmup", "2")),
  };
}

/**
 * An upgrade request with a fresh key, and `done(chunk)`, fed the bytes read until it says true: the answer's head
 * is complete and accepted the upgrade (it throws when it refused). The target sends nothing after its head unasked.
 */
export function websocketUpgrade(host, port, path) {
  const key = randomBytes(16).toString("base64");
  const accept = createHash("sha1").update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest("base64");
  let head = "";
  return {
    request: `GET ${path} HTTP/1.1\r\nHost: ${host}:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\n\r\n`,
    done(chunk) {
      head += chunk.toString("latin1");
      if (head.indexOf("\r\n\r\n") === -1) return false;
      if (!head.startsWith("HTTP/1.1 101") || !head.includes(accept))
        throw new Error(`upgrade refused: ${head.split("\r\n")[0]}`);
      return true;
    },
  };
}

/**
 * After `warmup` s, measures `seconds` s: `done(counted, wallSec, cpuUs)` gets what `count()` grew by (an object
 * of counters) over the window, its length and this process's CPU µs in it, from process.cpuUsage().
 */
export function measureWindow(warmup, seconds, count, done) {
  setTimeout(() => {
    const cpu0 = process.cpuUsage();
    const counts0 = count();
    const t0 = performance.now();
    setTimeout(() => {
      const cpu = process.cpuUsage(cpu0);
      const counts = count();
      const counted = Object.fromEntries(Object.entries(counts).map(([name, value]) => [name, value - counts0[name]]));
      done(counted, (performance.now() - t0) / 1000, cpu.user + cpu.system, cpu);
    }, seconds * 1000);
  }, warmup * 1000);
}

/**
 * Calls `start()` once `ready()` counts all `clients` (checked every 10 ms), or exits with `failure()` on stderr when
 * that takes over `timeoutMs`: a window measured with clients missing would under-report the load.
 */
export function whenAllReady(ready, clients, timeoutMs, failure, start) {
  const started = Date.now();
  const waiting = setInterval(() => {
    if (ready() === clients) {
      clearInterval(waiting);
      start();
    } else if (Date.now() - started > timeoutMs) {
      console.error(failure());
      process.exit(1);
    }
  }, 10);
}
