import { Redis } from "ioredis";
import type { Bus } from "@throng/core/ports";

/** A Redis connection; BullMQ needs maxRetriesPerRequest null on the connections it blocks on. */
export function createRedis(url: string, name: string): Redis {
  return new Redis(url, { maxRetriesPerRequest: null, connectionName: name, lazyConnect: false });
}

/** Publishing side of the process bus. */
export function createBus(redis: Redis): Bus {
  return {
    async publish(channel, message) {
      await redis.publish(channel, JSON.stringify(message));
    },
    async sequence(key) {
      const [[, value]] = (await redis
        .multi()
        .incr(key)
        .expire(key, 7 * 24 * 3600)
        .exec()) as [[Error | null, number]];
      return value;
    },
  };
}

export type Handler = (message: unknown) => void;

/**
 * Subscribing side: one subscriber connection per process, channels reference-counted so many browser
 * streams for the same run share one Redis subscription.
 */
export function createSubscriber(redis: Redis, onError: (err: unknown, channel: string) => void) {
  const handlers = new Map<string, Set<Handler>>();
  redis.on("message", (channel: string, raw: string) => {
    const set = handlers.get(channel);
    if (!set) return;
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch (err) {
      onError(err, channel);
      return;
    }
    for (const handler of set) handler(message);
  });
  return {
    async subscribe(channel: string, handler: Handler): Promise<() => Promise<void>> {
      let set = handlers.get(channel);
      if (!set) {
        set = new Set();
        handlers.set(channel, set);
        await redis.subscribe(channel);
      }
      set.add(handler);
      return async () => {
        const current = handlers.get(channel);
        if (!current) return;
        current.delete(handler);
        if (current.size === 0) {
          handlers.delete(channel);
          await redis.unsubscribe(channel).catch((err) => onError(err, channel));
        }
      };
    },
  };
}
export type Subscriber = ReturnType<typeof createSubscriber>;

/**
 * One message on `channel`, or undefined after `timeoutMs`: subscribed before `send` runs, so an answer published by
 * another process (the API instance holding an agent's socket) cannot slip past.
 */
export async function awaitMessage(
  subscriber: Subscriber,
  channel: string,
  timeoutMs: number,
  send: () => Promise<void>,
): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  let settle!: (message: unknown) => void;
  const answered = new Promise<unknown>((resolve) => (settle = resolve));
  const unsubscribe = await subscriber.subscribe(channel, (message) => settle(message));
  try {
    await send();
    timer = setTimeout(() => settle(undefined), timeoutMs);
    return await answered;
  } finally {
    clearTimeout(timer);
    await unsubscribe();
  }
}
