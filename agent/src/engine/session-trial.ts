import { randomUUID } from "node:crypto";
import type { PlanSpec, SessionStep } from "@throng/protocol/plan";
import { runTag, withRunTag } from "@throng/protocol/run-tag";
import { redactTrialOutcome, TRIAL_TIME_LIMIT_MS, type TrialOutcome } from "@throng/protocol/session-trial";
import { withSecrets } from "@throng/protocol/plan-secrets";
import { refusedTarget } from "../connection/target-guard";
import type { ScenarioMetrics } from "../metrics/snapshot-builder";
import { BUILT_IN_LOGIN } from "../scenarios/login-storm";
import { BUILT_IN_JOIN } from "../scenarios/movement-sync";
import { compileResponders } from "../scenarios/respond-rules";
import { openClient, type ScenarioContext } from "../scenarios/scenario";
import { compileSession, DEFAULT_EXPECT_TIMEOUT_MS } from "../scenarios/session";
import { createWireFormat } from "@throng/wire/wire-format";
import { createTransport } from "../transports/create-transport";
import type { Transport } from "../transports/transport";
import { clientTargets } from "./client-target";
import { createTrialRecorder } from "./trial-recorder";

export interface TrialOptions {
  /** The agent's --allow-target list: a trial is held to it exactly as a run's shard is. */
  allowTargets?: readonly string[];
  timeLimitMs?: number;
  /** The organisation secrets the plan names (the gateway's, §14); taken out of the outcome again. */
  secrets?: Readonly<Record<string, string>>;
}

/** The steps client 0 runs before its traffic: the plan's session, or the scenario's built-in login or join. */
function trialSession(scenario: PlanSpec["scenario"]): {
  steps: readonly SessionStep[];
  defaultTimeoutMs: number;
  connectTimeoutMs?: number;
} {
  if (scenario.kind === "script") {
    throw new Error(
      "a script scenario's clients are code, not session steps, so there is nothing to try here: run the plan with a few clients instead",
    );
  }
  const own = scenario.session?.length ? scenario.session : undefined;
  if (scenario.kind === "login-storm") {
    const timeoutMs = scenario.timeoutMs ?? DEFAULT_EXPECT_TIMEOUT_MS;
    return {
      steps: own ?? (scenario.login ? BUILT_IN_LOGIN : []),
      defaultTimeoutMs: timeoutMs,
      connectTimeoutMs: timeoutMs,
    };
  }
  if (scenario.kind === "movement-sync")
    return { steps: own ?? BUILT_IN_JOIN, defaultTimeoutMs: DEFAULT_EXPECT_TIMEOUT_MS };
  return { steps: own ?? [], defaultTimeoutMs: DEFAULT_EXPECT_TIMEOUT_MS };
}

/** Metrics that only tell the recorder about the connect; a trial counts nothing else (no snapshot is built). */
function connectMetrics(on: { opened(us: number | undefined): void; failed(cause: string): void }): ScenarioMetrics {
  const ignore = () => {};
  const own: Partial<ScenarioMetrics> = {
    connectionOpened: on.opened,
    connectionFailed: (cause) => on.failed(cause ?? "error"),
  };
  // Every other call a client makes (bytes, closes) is ignored: a Proxy keeps this one object whatever ScenarioMetrics grows.
  return new Proxy(own, { get: (target, name) => target[name as keyof ScenarioMetrics] ?? ignore }) as ScenarioMetrics;
}

/** Tells the recorder when a socket starts to open (the http steps before it are over). */
function announcing(transport: Transport, connecting: () => void): Transport {
  return {
    open: (events, options) => {
      connecting();
      return transport.open(events, options);
    },
  };
}

/**
 * Runs ONE client (index 0, room 0) of the plan through its connect and session steps, exactly as the engine does in a
 * run (openClient, SessionRun, http steps, respond rules, the plan's codecs and framing), reporting each step's bytes
 * and outcome; then closes its socket. Never throws: what could not run is the outcome's `error`. The whole trial is
 * bounded by `timeLimitMs`, whatever the steps' own timeouts say.
 */
export async function runSessionTrial(given: PlanSpec, options: TrialOptions = {}): Promise<TrialOutcome> {
  const secrets = options.secrets ?? {};
  // A trial is a run of one client: its {{run}} is a tag of its own. What it recorded shows no secret's value.
  let plan: PlanSpec;
  try {
    plan = withSecrets(withRunTag(given, runTag(randomUUID())), secrets);
  } catch (error) {
    return redactTrialOutcome({ steps: [], error: `${(error as Error).message}: nothing was sent` }, secrets);
  }
  return redactTrialOutcome(await tryClient(plan, options), secrets);
}

/** The trial of the plan's client 0, its secrets written in. */
async function tryClient(plan: PlanSpec, options: TrialOptions): Promise<TrialOutcome> {
  const refused = refusedTarget({ plan }, options.allowTargets ?? [], "nothing was sent");
  if (refused) return { steps: [], error: refused };
  let session: ReturnType<typeof trialSession>;
  let prepared: { compiled: ReturnType<typeof compileSession>; wire: ReturnType<typeof createWireFormat> };
  try {
    session = trialSession(plan.scenario);
    const wire = createWireFormat(plan);
    prepared = { wire, compiled: compileSession(session.steps, { defaultTimeoutMs: session.defaultTimeoutMs, wire }) };
  } catch (error) {
    return { steps: [], error: (error as Error).message };
  }
  const recorder = createTrialRecorder(session.steps);
  const limitMs = options.timeLimitMs ?? TRIAL_TIME_LIMIT_MS;
  let end!: (failure?: string, error?: string) => void;
  const ended = new Promise<TrialOutcome>(
    (resolve) => (end = (failure, error) => resolve(recorder.finish(failure, error))),
  );
  const transportFor = clientTargets(plan.target);
  const context: ScenarioContext = {
    transport: announcing(createTransport(plan.target), recorder.connecting),
    ...(transportFor
      ? { transportFor: (fields, vars) => announcing(transportFor(fields, vars), recorder.connecting) }
      : {}),
    metrics: connectMetrics({ opened: recorder.connected, failed: recorder.connectFailed }),
    clients: 1,
    datagram: plan.target.protocol === "udp",
    wire: prepared.wire,
    // A client that ended by itself: its connect or an http step failed (the cause is already written down).
    clientEvents: { up: () => {}, down: () => end() },
    // An http step's unexpected status is the step's own error here, not a line in the agent's log.
    warn: () => {},
  };
  const respond = compileResponders("respond" in plan.scenario ? plan.scenario.respond : undefined, prepared.wire);
  const room = plan.scenario.kind === "movement-sync" ? 0 : undefined;
  const client = openClient(context, 0, {
    session: { steps: prepared.compiled, ...(room !== undefined ? { room } : {}), observer: recorder.observer },
    ...(respond ? { respond } : {}),
    ...(session.connectTimeoutMs !== undefined ? { connectTimeoutMs: session.connectTimeoutMs } : {}),
    onOpen: () => end(),
    onMessage: () => {},
    sessionFailed: (cause) => end(cause),
  });
  const limit = setTimeout(
    () => end("trial-time-limit", `the trial stopped after ${limitMs / 1000} s, its time limit`),
    limitMs,
  );
  try {
    return await ended;
  } finally {
    clearTimeout(limit);
    // The socket closes now; its graceful close (up to the transport's own force timeout) is not waited for.
    void client.stop();
  }
}
