// Labels, units and hints for plan fields. Fields not listed here get a label made from their name
// ("burstSize" → "Burst size"), and a unit from its suffix (…Ms → ms), so a new schema field is usable at once.

export interface FieldText {
  label: string;
  unit?: string;
  hint?: string;
}

/** Keyed `section.key`, or `section.variant.key` where one variant means something else by the same key. */
const TEXT: Record<string, FieldText> = {
  "target.protocol": { label: "Protocol", hint: "How clients talk to the server under test." },
  "target.websocket.url": { label: "Target URL", hint: "The WebSocket endpoint under test, ws:// or wss://." },
  "scenario.kind": { label: "Scenario", hint: "What every client does once connected." },
  "scenario.ping-pong.intervalMs": { label: "Ping interval", unit: "ms", hint: "Each client sends a ping this often." },
  "scenario.ping-pong.messageBytes": { label: "Message size", unit: "B", hint: "Bytes per ping (the pong echoes them)." },
  "load.clients": { label: "Clients", unit: "clients", hint: "Simulated players, each with its own connection." },
  "load.durationSec": { label: "Duration", unit: "s", hint: "How long the run lasts, ramp-up included." },
  "load.rampUpSec": { label: "Ramp-up", unit: "s", hint: "Clients join evenly over this time; 0 = all at once." },
  "agents.count": { label: "Agents", unit: "agents", hint: "At most this many agents; blank = every matching online agent." },
  "agents.onLost": { label: "If an agent is lost", hint: "continue: the run goes on degraded and the report names the agent; abort: the run stops." },
};

const SCENARIO_DESCRIPTIONS: Record<string, string> = {
  "ping-pong": "Every client pings the target and times the pong.",
  "echo-flood": "Every client sends messages as fast as allowed and counts the echoes.",
  "movement-sync": "Clients send position updates at a tick rate, as players moving in a shared world.",
  "login-storm": "Clients connect, log in and leave, over and over: the cost of arrivals.",
};

const UNITS: [RegExp, string][] = [
  [/PerSec$/, "/s"],
  [/Ms$/, "ms"],
  [/Sec$/, "s"],
  [/Bytes$/, "B"],
  [/Percent$/, "%"],
  [/Hz$/, "Hz"],
];

function humanize(key: string): FieldText {
  let stem = key;
  let unit: string | undefined;
  for (const [pattern, symbol] of UNITS) {
    if (pattern.test(key) && key.replace(pattern, "") !== "") {
      stem = key.replace(pattern, "");
      unit = symbol;
      break;
    }
  }
  const words = stem.replace(/([a-z0-9])([A-Z])/g, "$1 $2").toLowerCase();
  const label = words.charAt(0).toUpperCase() + words.slice(1);
  return unit ? { label, unit } : { label };
}

export function fieldText(section: string, variant: string | null, key: string): FieldText {
  return (variant ? TEXT[`${section}.${variant}.${key}`] : undefined) ?? TEXT[`${section}.${key}`] ?? humanize(key);
}

export function scenarioDescription(kind: string): string | undefined {
  return SCENARIO_DESCRIPTIONS[kind];
}
