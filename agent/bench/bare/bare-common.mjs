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
