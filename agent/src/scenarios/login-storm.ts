import type { LoginStormScenario, SessionStep } from "@throng/protocol/plan";
import { compileResponders } from "./respond-rules";
import { clientMetrics, clientSet, openClient, type ScenarioContext, type ScenarioRunner } from "./scenario";
import { compileSession } from "./session";

const DEFAULT_TIMEOUT_MS = 10_000;

/** `login: true` as session steps: the reference target answers `{"type":"login",…}` with `{"type":"login-ok",…}`. */
export const BUILT_IN_LOGIN: readonly SessionStep[] = [
  { kind: "send", message: { format: "json", body: '{"type":"login","client":{{client}},"seq":0}' } },
  { kind: "expect", reply: { json: { field: "type", equals: "login-ok" } } },
];

/**
 * Each client connects (the connect time goes to `connectUs`, failures by cause to errorsByKind), then runs its
 * login: the plan's session, or with `login: true` the built-in one (BUILT_IN_LOGIN). The session's time from its
 * first step to its last goes to `loginUs`; a failed one counts as a failed login (`login-<cause>`). Then it holds
 * or closes. The arrival rate comes from the engine's load schedule (`connectsPerSec`).
 */
export function createLoginStorm(scenario: LoginStormScenario, context: ScenarioContext): ScenarioRunner {
  const timeoutMs = scenario.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const hold = scenario.hold ?? true;
  const steps = scenario.session?.length ? scenario.session : scenario.login ? BUILT_IN_LOGIN : undefined;
  // The scenario's timeoutMs is the wait of every expect step that gives none.
  const session = steps
    ? { steps: compileSession(steps, { defaultTimeoutMs: timeoutMs, ...(context.wire ? { wire: context.wire } : {}) }) }
    : undefined;
  const respond = compileResponders(scenario.respond, context.wire);

  return clientSet((index) => {
    const metrics = clientMetrics(context, index);
    return openClient(context, index, {
      connectTimeoutMs: timeoutMs,
      ...(session ? { session } : {}),
      ...(respond ? { respond } : {}),
      onOpen(connection, done) {
        if (done) metrics.loginMicros((done.endedAt - done.startedAt) * 1000);
        if (!hold) void connection.close();
      },
      onMessage() {
        // Once logged in, a client only holds its connection.
      },
      sessionFailed(cause, client, message, bytes) {
        metrics.loginFailed(cause, client, message, bytes);
      },
    });
  });
}
