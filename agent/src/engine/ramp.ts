import type { Clock } from "./clock";
import type { LoadSchedule } from "./load-schedule";

/** Starting thousands of connections in one go would stall the loop that times the snapshots. */
const MAX_STARTS_PER_STEP = 100;
/** How often the driver re-reads a schedule that keeps changing (stages, arrival rates). */
const POLL_MS = 10;

export interface Ramp {
  /** Clients running now (started minus stopped by the schedule). */
  started(): number;
  stop(): void;
}

export interface RampOptions {
  /** Server time the schedule counts from. */
  startAt: number;
  clock: Clock;
  schedule: LoadSchedule;
  /** The shard's client cap: the schedule never goes above it. */
  clients: number;
  startClient(index: number): void;
  stopClient?(index: number): void;
}

/** Drives the client count along the load schedule: starts (and for ramp-downs stops) clients as it says. */
export function startRamp(options: RampOptions): Ramp {
  const { startAt, clock, schedule } = options;
  let running = 0;
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const step = () => {
    timer = undefined;
    if (stopped) return;
    const elapsed = clock.now() - startAt;
    const wanted = Math.min(options.clients, schedule.clientsAt(elapsed));
    const limit = Math.min(wanted, running + MAX_STARTS_PER_STEP);
    while (running < limit) options.startClient(running++);
    while (schedule.rampsDown && running > wanted) options.stopClient?.(--running);
    if (running >= options.clients && !schedule.rampsDown) return;
    // Catching up after a burst goes again at once; otherwise look again shortly.
    timer = setTimeout(step, running < wanted ? 0 : POLL_MS);
  };
  step();
  return {
    started: () => running,
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
