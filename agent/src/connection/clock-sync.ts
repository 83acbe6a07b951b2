/** Heartbeat samples kept; the one with the shortest round trip wins, as in NTP's clock filter. */
const WINDOW = 8;
/** An echo older than this is from a stale link and says little about the clock. */
const MAX_RTT_MS = 10_000;

export interface ClockSync {
  /** Current estimate of server time minus local time, in ms. */
  offsetMs(): number;
  /** First estimate, from `ready`: biased by the one-way delay, which the heartbeats then remove. */
  fromReady(serverTime: number, receivedAt: number): number;
  /**
   * From a server heartbeat `{ sentAt: server clock, echo: our sentAt }` received at `receivedAt`
   * (all local times from the same clock as `echo`). Returns the new estimate.
   */
  fromHeartbeat(serverSentAt: number, echo: number, receivedAt: number): number;
}

/** Estimates the server clock offset: `ready` first, then NTP-style from heartbeat round trips. */
export function createClockSync(): ClockSync {
  let offset = 0;
  let samples: Array<{ rttMs: number; offsetMs: number }> = [];

  return {
    offsetMs: () => offset,
    fromReady(serverTime, receivedAt) {
      samples = [];
      offset = serverTime - receivedAt;
      return offset;
    },
    fromHeartbeat(serverSentAt, echo, receivedAt) {
      const rttMs = receivedAt - echo;
      if (rttMs < 0 || rttMs > MAX_RTT_MS) return offset;
      // The server stamped its reply halfway through the round trip, give or take its asymmetry.
      samples.push({ rttMs, offsetMs: serverSentAt - (echo + receivedAt) / 2 });
      if (samples.length > WINDOW) samples.shift();
      offset = samples.reduce((best, sample) => (sample.rttMs < best.rttMs ? sample : best)).offsetMs;
      return offset;
    },
  };
}
