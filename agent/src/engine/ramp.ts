import type { Clock } from "./clock";

/** Starting thousands of connections in one go would stall the loop that times the snapshots. */
const MAX_STARTS_PER_STEP = 500;

export interface Ramp {
  /** Clients started so far. */
  started(): number;
  stop(): void;
}

export interface RampOptions {
  clients: number;
  /** Server time the first client starts at; client i starts at startAt + rampUpMs * i / clients. */
  startAt: number;
  rampUpMs: number;
  clock: Clock;
  startClient(index: number): void;
}

/** Starts clients evenly over the ramp; clients whose time has already passed start at once. */
export function startRamp(options: RampOptions): Ramp {
  const { clients, startAt, rampUpMs, clock } = options;
  const dueAt = (index: number) => startAt + (rampUpMs * index) / clients;
  let started = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;

  const step = () => {
    timer = undefined;
    if (stopped) return;
    const now = clock.now();
    const limit = Math.min(clients, started + MAX_STARTS_PER_STEP);
    while (started < limit && dueAt(started) <= now) options.startClient(started++);
    if (started >= clients) return;
    const wait = Math.max(0, Math.ceil(dueAt(started) - clock.now()));
    timer = setTimeout(step, wait);
  };
  step();

  return {
    started: () => started,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
