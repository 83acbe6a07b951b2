import type { LoginStormScenario } from "@throng/protocol/plan";
import { clientSet, openClient, type ScenarioContext, type ScenarioRunner } from "./scenario";

const DEFAULT_TIMEOUT_MS = 10_000;

/**
 * Each client connects (the connect time goes to `connectUs`, failures by cause to errorsByKind), optionally
 * sends `{"type":"login","client":C,"seq":0}` and waits for `login-ok` (`loginUs`), then holds or closes.
 * The arrival rate comes from the engine's load schedule (`connectsPerSec`).
 */
export function createLoginStorm(scenario: LoginStormScenario, context: ScenarioContext): ScenarioRunner {
  const { metrics } = context;
  const timeoutMs = scenario.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const hold = scenario.hold ?? true;

  return clientSet((index) => {
    let loginSentAt: number | undefined;
    let timer: NodeJS.Timeout | undefined;
    const client = openClient(context, index, {
      connectTimeoutMs: timeoutMs,
      onOpen(connection) {
        if (!scenario.login) {
          if (!hold) void connection.close();
          return;
        }
        const frame = `{"type":"login","client":${index},"seq":0}`;
        loginSentAt = performance.now();
        if (!connection.send(frame)) return;
        metrics.messageSent(frame.length);
        timer = setTimeout(() => {
          metrics.loginFailed("timeout");
          loginSentAt = undefined;
        }, timeoutMs);
      },
      onMessage(data, receivedAt) {
        if (loginSentAt === undefined || !data.includes('"login-ok"')) return;
        clearTimeout(timer);
        metrics.loginMicros((receivedAt - loginSentAt) * 1000);
        loginSentAt = undefined;
        if (!hold) void client.connection.close();
      },
      onStop(atRunEnd) {
        // A login still unanswered when the run ends was cut short by the run, not failed by the server.
        if (!atRunEnd || loginSentAt === undefined) return;
        metrics.inFlightAtEnd(1);
        loginSentAt = undefined;
      },
      onEnd() {
        clearTimeout(timer);
        if (loginSentAt !== undefined) metrics.loginFailed("closed");
        loginSentAt = undefined;
      },
    });
    return client;
  });
}
