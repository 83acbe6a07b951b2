import { FixedMessage, type Transport, type TransportConnection, type TransportEvents } from "../transports/transport";

/** A client's events with every message dropped (a server that never answers); its own methods still called on it. */
export function silenced(events: TransportEvents): TransportEvents {
  return { onOpen: () => events.onOpen(), onEnd: (end) => events.onEnd(end), onMessage() {} };
}

/**
 * In-memory transport for engine unit tests: connects on the next tick and answers every
 * ping with a pong one tick later. `failing` makes every connect fail instead.
 */
export function createFakeTransport(options: { failing?: boolean } = {}) {
  let opened = 0;
  let closed = 0;
  const transport: Transport = {
    open(events): TransportConnection {
      let state: "connecting" | "open" | "ended" = "connecting";
      let resolveEnded!: () => void;
      const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
      const end = () => {
        if (state === "ended") return;
        const wasOpen = state === "open";
        state = "ended";
        if (wasOpen) closed += 1;
        events.onEnd(
          options.failing
            ? { opened: false, error: Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }) }
            : { opened: wasOpen },
        );
        resolveEnded();
      };
      setImmediate(() => {
        if (state !== "connecting") return;
        if (options.failing) return end();
        state = "open";
        opened += 1;
        events.onOpen();
      });
      return {
        send(data) {
          if (state !== "open") return false;
          const { seq } = JSON.parse(String(data instanceof FixedMessage ? data.payload : data)) as { seq: number };
          setImmediate(
            () => state === "open" && events.onMessage(Buffer.from(`{"type":"pong","seq":${seq}}`), performance.now()),
          );
          return true;
        },
        close() {
          setImmediate(end);
          return ended;
        },
      };
    },
  };
  return { transport, counts: () => ({ opened, closed }) };
}

/**
 * A server as a function: each message the client sends gets these replies on the next turn of the loop, or when
 * `defer` runs them (queueMicrotask for tests whose fake timers leave setImmediate real).
 */
export function createScriptedTransport(
  answer: (message: string) => (string | Buffer)[],
  defer: (callback: () => void) => void = setImmediate,
) {
  const sent: string[] = [];
  let closes = 0;
  const transport: Transport = {
    open(events) {
      let open = true;
      defer(() => open && events.onOpen());
      return {
        send(data) {
          if (!open) return false;
          const text = data instanceof FixedMessage ? data.payload.toString() : Buffer.from(data).toString();
          sent.push(text);
          for (const reply of answer(text))
            defer(() => open && events.onMessage(Buffer.from(reply), performance.now()));
          return true;
        },
        close() {
          if (open) {
            closes += 1;
            queueMicrotask(() => events.onEnd({ opened: true }));
          }
          open = false;
          return Promise.resolve();
        },
      };
    },
  };
  return { transport, sent, closes: () => closes };
}
