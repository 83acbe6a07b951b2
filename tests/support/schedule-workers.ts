import pino from "pino";
import { createRunQueue } from "@throng/runtime/jobs";
import { createRedis } from "@throng/runtime/redis";
import type { TestApi } from "../../apps/api/src/testing/test-api";
import { composeWorkers } from "../../workers/src/compose";

/**
 * The real workers beside a test API, for schedule tests: a scheduled-run job they process starts a run, which stays
 * queued (starting it is the orchestrator's part, tested elsewhere). `close` stops them and their Redis connections.
 */
export function startScheduleWorkers(api: TestApi) {
  const connections = [0, 1, 2].map(() => createRedis(process.env.REDIS_URL!, "schedule-test"));
  const { queue, jobs } = createRunQueue(connections[2]!, api.prefix);
  const workers = composeWorkers({
    db: api.db,
    redis: connections[0]!,
    workerRedis: connections[1]!,
    jobs: { ...jobs, startRun: async () => {} },
    log: pino({ level: "silent" }),
    prefix: api.prefix,
    concurrency: 1,
    heartbeatIntervalMs: 60_000,
  });
  return {
    async close() {
      await workers.worker.close();
      await queue.close();
      for (const connection of connections) connection.disconnect();
    },
  };
}

/** A plan the schedule tests save and schedule but never load: nothing dials its target. */
export const unrunPlan = (name: string) => ({
  name,
  target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws" },
  scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
  load: { clients: 2, durationSec: 60 },
});
