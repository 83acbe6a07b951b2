import { formatDecimal } from "../shared/format";

// Labels, units and hints for plan fields. Fields not listed here get a label made from their name
// ("burstSize" → "Burst size"), and a unit from its suffix (…Ms → ms), so a new schema field is usable at once.

export interface FieldText {
  label: string;
  unit?: string;
  hint?: string;
  /** Drawn as a textarea (message bodies). */
  multiline?: boolean;
  /** What the blank choice of an optional union says ("none" where leaving it out means no rule). */
  empty?: string;
  /** What one item of a list is called on its Add and Remove buttons ("SLO"); else the label made singular. */
  itemName?: string;
  /** What one row of a name = value list is, with an example ("parameter": message = PING). */
  noun?: { one: string; name: string; value: string };
  /** Drawn with the required fields, not folded under Options: the one field its variant is about (a delimiter). */
  prominent?: boolean;
  /** The schema's limits are said beside the hint ("0 to 100 %"), where they are not plain from the field. */
  limits?: boolean;
  /** Not drawn: another field says the same (a delimiter as text is the hex delimiter's text box); kept in the plan. */
  hidden?: boolean;
}

/** Keyed `section.key`, or `section.variant.key` where one variant means something else by the same key. */
const TEXT: Record<string, FieldText> = {
  name: { label: "Plan name", hint: "e.g. Lobby smoke test" },
  "target.protocol": { label: "Protocol", hint: "How clients talk to the server under test." },
  "target.websocket.url": { label: "Target URL", hint: "The WebSocket endpoint under test, ws:// or wss://." },
  "target.websocket.headers": {
    label: "Upgrade request headers",
    hint: "Sent with the WebSocket handshake, e.g. an auth token.",
  },
  "target.websocket.subprotocols": {
    label: "Subprotocols",
    hint: "Sec-WebSocket-Protocol values to offer, one per line.",
  },
  "target.websocket.frames": {
    label: "Frame type",
    hint: "Text or binary frames for what clients send (default text).",
  },
  "target.websocket.tls": {
    label: "TLS (wss://)",
    hint: "How agents check the server's certificate; by default against the system's CAs.",
  },
  "target.websocket.tls.caFile": {
    label: "Extra CA file",
    hint: "A PEM file on each agent's host whose certificates are trusted too (e.g. a self-signed test server).",
  },
  "target.websocket.tls.insecureSkipVerify": {
    label: "Skip certificate check",
    hint: "Accept any certificate unverified: only for self-signed test servers.",
  },
  "target.host": { label: "Host", hint: "Name or IP address of the server under test." },
  "target.port": { label: "Port" },
  "target.sourceAddresses": {
    label: "Source addresses",
    hint: "Local IPs to spread connections over (e.g. 127.0.0.2), one per line, to pass one address's port limit.",
  },
  "target.tcp.framing": {
    label: "Framing",
    hint: "How messages are cut out of the byte stream.",
    empty: "none (a script scenario reads the socket itself)",
  },
  "target.framing.delimiterHex": {
    label: "Delimiter (hex)",
    hint: "The bytes that end each message, e.g. 0d0a for \\r\\n.",
    prominent: true,
  },
  "target.tcp.framing.delimiter.delimiter": { label: "Delimiter as text", hidden: true },
  "target.kcp.framing.delimiter.delimiter": { label: "Delimiter as text", hidden: true },
  "target.kcp.mode": {
    label: "KCP mode",
    hint: "kcptun's presets of nodelay, interval, resend, nc: normal (0, 40, 2, 1), fast (0, 30, 2, 1), fast2 (1, 20, 2, 1), fast3 (1, 10, 2, 1). The four fields below replace a preset's own value.",
  },
  "target.kcp.nodelay": {
    label: "No-delay",
    hint: "Yes: the RTO starts from 30 ms (else 100) and grows by half of it per expiry (else all of it), as kcp-go's nodelay 1.",
  },
  "target.kcp.intervalMs": {
    label: "Flush interval",
    unit: "ms",
    hint: "How long ACKs wait to go out together (10 to 5000 ms): kcp-go's interval.",
  },
  "target.kcp.resend": {
    label: "Fast resend",
    unit: "ACKs",
    hint: "Resend a segment at once when this many later ones were acknowledged; 0 = no fast retransmit.",
  },
  "target.kcp.nc": {
    label: "No congestion window",
    hint: "Yes: only the send window and the server's receive window limit what is in flight (kcp-go's nc 1).",
  },
  "target.kcp.mtu": {
    label: "MTU",
    unit: "B",
    hint: "Largest datagram, KCP's 24-byte header included (default 1400; kcp-go allows at most 1472).",
  },
  "target.kcp.sendWindow": {
    label: "Send window",
    unit: "segments",
    hint: "Segments a client may have unacknowledged (default 32, kcp-go's sndwnd).",
  },
  "target.kcp.receiveWindow": {
    label: "Receive window",
    unit: "segments",
    hint: "Segments a client takes ahead of the next in order (default 32, kcp-go's rcvwnd).",
  },
  "target.kcp.ackNoDelay": {
    label: "ACK at once",
    hint: "Yes: each ACK goes as its segment arrives, not at the next flush interval (kcp-go's SetACKNoDelay).",
  },
  "target.kcp.stream": {
    label: "Stream mode",
    hint: "Yes: KCP carries a byte stream and the framing below cuts it into messages; no: each message is one KCP message.",
  },
  "target.kcp.framing": {
    label: "Framing",
    empty: "none (message mode)",
    hint: "Stream mode only: how messages are cut out of the byte stream, as over TCP.",
  },
  "target.kcp.conv": {
    label: "Conversation id",
    hint: "One id (0 to 4294967295) for every client; blank = each connection draws its own, as kcp-go's Dial does.",
  },
  "scenario.kind": { label: "Scenario type", hint: "What every client does once connected." },
  "scenario.ping-pong.intervalMs": { label: "Ping interval", unit: "ms", hint: "Each client sends a ping this often." },
  "scenario.ping-pong.messageBytes": {
    label: "Message size",
    unit: "B",
    hint: "Bytes per ping. Throng's reference target answers with a short pong (Response size asks for a bigger one); an echo server sends the same bytes back.",
  },
  "scenario.responseBytes": { label: "Response size", unit: "B", hint: "Size the target should answer with." },
  "scenario.thinkTime": {
    label: "Think time",
    hint: "Wait a random time after each answer instead of a fixed interval (closed model).",
  },
  "scenario.heartbeat": { label: "Heartbeat", hint: "A message on its own timer, not answered and not measured." },
  "scenario.message": {
    label: "Custom message",
    hint: "Placeholders: {{seq}} {{sentAtUs}} {{client}} (the client's number in the run) {{room}} {{run}} {{x}} {{y}} {{z}} {{pad}}.",
  },
  "scenario.match": { label: "Response matching", hint: "How an answer is paired with its request." },
  "scenario.timeoutMs": { label: "Timeout", unit: "ms", hint: "An answer slower than this counts as an error." },
  "scenario.maxInFlight": {
    label: "Messages in flight",
    unit: "per connection",
    hint: "Unanswered messages allowed per connection (default 1).",
  },
  "scenario.roomSize": {
    label: "Room size",
    unit: "players",
    hint: "Players per room; each update is broadcast to the room.",
  },
  "scenario.updateHz": {
    label: "Update rate",
    unit: "Hz",
    hint: "Position updates per second per player; blank = as fast as possible.",
  },
  "scenario.connectsPerSec": {
    label: "Connect rate",
    unit: "/s",
    hint: "New connections per second; blank = all at once.",
  },
  "scenario.login": { label: "Log in", hint: "Send a login message and time its answer." },
  "scenario.hold": { label: "Hold connections", hint: "Keep connections open until the run ends (default yes)." },
  "load.clients": {
    label: "Clients",
    unit: "clients",
    hint: "Simulated players at most at once, each with its own connection.",
  },
  "load.durationSec": { label: "Duration", unit: "s", hint: "How long the run lasts, ramp-up included." },
  "load.rampUpSec": { label: "Ramp-up", unit: "s", hint: "Clients join evenly over this time; 0 = all at once." },
  "load.joinIntervalMs": {
    label: "Join interval",
    unit: "ms",
    hint: "One new client every this many ms, instead of the ramp-up.",
  },
  "load.shape": {
    label: "Load shape",
    hint: "Stages, an arrival rate or a step-up search; default ramp-up then hold.",
  },
  "load.shape.step-up.mode": {
    label: "Search",
    hint: "fixed: add the same clients every step; auto: coarse steps up to Clients, then finer ones below the first break.",
  },
  "load.shape.step-up.startClients": { label: "First step", unit: "clients", hint: "Clients held in the first step." },
  "load.shape.step-up.stepClients": {
    label: "Step size",
    unit: "clients",
    hint: "fixed search: clients added every step (leave blank for auto).",
  },
  "load.shape.step-up.coarseSteps": {
    label: "Coarse steps",
    unit: "levels",
    hint: "auto search: levels from the first step to Clients (default 8).",
  },
  "load.shape.step-up.fineSteps": {
    label: "Fine steps",
    unit: "increments",
    hint: "auto search: increments between the last coarse level that held and the one that broke (default 5).",
  },
  "agents.count": {
    label: "Number of agents",
    unit: "agents",
    hint: "At most this many agents; blank = every matching online agent.",
  },
  "agents.labels": {
    label: "Only agents with these labels",
    hint: "An agent must carry every label listed. None = any agent.",
  },
  "agents.onLost": {
    label: "If an agent is lost",
    hint: "continue: the run goes on degraded and the report names the agent; abort: the run stops.",
  },
  network: {
    label: "Cohorts",
    itemName: "cohort",
    hint: "Each cohort's clients get its network, applied by the agent to their traffic only; clients in no cohort get the rig's own. At most 8 cohorts, together at most all the clients.",
  },
  "network.name": {
    label: "Name",
    hint: 'How its figures and SLOs name it: lower-case letters, digits and "-", e.g. mobile.',
  },
  "network.share": {
    label: "Share of the clients",
    unit: "of 1",
    hint: "0.3 = 30 % of the clients, spread evenly over agents and rooms. Give a share or a number of clients, not both.",
    prominent: true,
    limits: true,
  },
  "network.clients": {
    label: "Or a number of clients",
    unit: "clients",
    hint: "Instead of a share: this many of the run's clients.",
    prominent: true,
    limits: true,
  },
  "network.delayMs": {
    label: "Delay",
    unit: "ms",
    hint: "Added one way, in each direction it applies to (20 both ways = 40 ms more round trip).",
    prominent: true,
    limits: true,
  },
  "network.jitterMs": {
    label: "Jitter",
    unit: "ms",
    hint: "Each packet's delay is drawn from delay ± jitter.",
    prominent: true,
    limits: true,
  },
  "network.lossPercent": {
    label: "Loss",
    unit: "%",
    hint: "Packets dropped at random, in each direction it applies to. Over TCP the agent must reach below TCP (docs/networks.md).",
    prominent: true,
    limits: true,
  },
  "network.duplicatePercent": { label: "Duplicated", unit: "%", hint: "Packets sent twice.", limits: true },
  "network.reorderPercent": {
    label: "Reordered",
    unit: "%",
    hint: "Packets that overtake those still delayed: needs a delay.",
    limits: true,
  },
  "network.bandwidthKbps": {
    label: "Bandwidth",
    unit: "kbit/s",
    hint: "Each client's link rate; more than 1 s of backlog is dropped.",
    limits: true,
  },
  "network.direction": {
    label: "Direction",
    hint: "up: client to server; down: server to client; both: each way.",
    prominent: true,
  },
  "network.seed": {
    label: "Random seed",
    hint: "The same seed draws the same losses for the same packets (default 1).",
    limits: true,
  },
  "network.sourceAddresses": {
    label: "Source addresses",
    hint: "TCP or WebSocket to a target off loopback: this rig's addresses the cohort's clients connect from, one per line.",
  },
  "slos.cohort": {
    label: "Cohort",
    empty: "the whole run (every client)",
    hint: "Judge only one network cohort's clients, on their own figures.",
  },
  slos: {
    label: "Thresholds",
    itemName: "SLO",
    hint: "Each metric must stay below its threshold. None: the run is judged by its load alone.",
  },
  "slos.metric": { label: "Metric" },
  "slos.below": {
    label: "Must stay below",
    hint: "In the metric's unit: milliseconds for times, percent for rates (1 = 1 %), a count for a script's counter.",
  },
  export: {
    label: "Export series",
    hint: "Push the runs' per-second series to the organisation's metrics endpoints (Settings → Metrics export).",
  },
  "export.prometheus": {
    label: "To Prometheus (remote write)",
    empty: "no",
    hint: "yes: each run streams its seconds to the Prometheus endpoint.",
  },
  "export.otlp": { label: "To OTLP", empty: "no", hint: "yes: each run streams its seconds to the OTLP endpoint." },
  "scenario.session": {
    label: "Session steps",
    hint: "What each client does, in order, once connected and before its traffic starts: log in, send a handshake, join a room. HTTP calls come first, before the socket opens. A failed step closes the client. Try it, below the scenario, sends one client's steps from an online agent and shows each step's bytes. Reference: docs/protocols.md in the Throng repository (Session steps).",
  },
  "scenario.script.script": {
    label: "Script",
    hint: "The module every client runs, from this organisation's scripts (Scripts in the menu). Agents run it only when started with --allow-scripts. Reference: docs/protocols.md in the Throng repository (Scripted clients).",
  },
  "scenario.script.parameters": {
    label: "Parameters",
    hint: 'Handed to every client as ctx.parameters; 5 and true are read as a number and a boolean, "5" as text.',
    noun: { one: "parameter", name: "message", value: "PING" },
  },
  "scenario.script.roomSize": {
    label: "Room size",
    unit: "clients",
    hint: "Clients per room: ctx.room is the client's index ÷ room size, and a room's clients run on one engine.",
  },
  "scenario.script.metrics": {
    label: "Metrics",
    hint: "What the script records: ctx.measure(name, …) into a histogram, ctx.count(name) into a counter. Declared ones are charted from the first second and can be SLOs (script:NAME-p99, script:NAME-count).",
  },
  "scenario.script.metrics.name": { label: "Name", hint: "As the script writes it, e.g. connect-ms" },
  "scenario.script.metrics.kind": { label: "Kind", hint: "histogram: ctx.measure; counter: ctx.count." },
  "scenario.script.timeoutMs": {
    label: "Measure timeout",
    unit: "ms",
    hint: "A ctx.measure() not settled after this long counts as a script-timeout error; blank = no limit.",
  },
  "scenario.leave": { label: "Leave steps", hint: "What each player sends before it stops, in order." },
  "scenario.session.message": { label: "Message" },
  "scenario.session.message.body": {
    label: "Message body",
    multiline: true,
    hint: "As sent; a delimiter framing adds its delimiter. Placeholders: {{client}} (the client's number in the run), {{run}}, {{vars.NAME}} (a captured variable).",
  },
  "scenario.session.reply": {
    label: "Reply must",
    hint: "The step waits for a reply like this; other messages meanwhile are skipped.",
  },
  "scenario.session.failWhen": {
    label: "Fail when the reply",
    empty: "never fail early",
    hint: "A reply like this fails the step (e.g. regex ^-ERR).",
  },
  "scenario.session.timeoutMs": {
    label: "Timeout",
    unit: "ms",
    hint: "The step fails when nothing matches for this long (default 10000 ms).",
  },
  "scenario.session.capture": {
    label: "Captures",
    hint: "Copy values of the reply into variables, used later as {{vars.NAME}}.",
  },
  "scenario.session.capture.name": { label: "Variable name", hint: "e.g. token" },
  "scenario.session.capture.from": { label: "Read from" },
  "scenario.session.ms": { label: "Pause for", unit: "ms" },
  "scenario.session.url": {
    label: "URL",
    hint: "http:// or https:// with the host and port written out; {{client}}, {{run}} and {{vars.NAME}} may follow them.",
  },
  "scenario.session.headers": { label: "Request headers" },
  "scenario.session.body": { label: "Request body", hint: "POST and PUT only." },
  "scenario.session.body.body": { label: "Body", multiline: true },
  "scenario.session.expectStatus": { label: "Expected statuses", hint: "e.g. 200, 201 (default any 2xx)." },
  "scenario.message.body": { label: "Body", multiline: true },
  "scenario.reply": {
    label: "Check every reply",
    hint: "A reply that misses the rule, or matches the fail rule, counts as a bad-reply error.",
  },
  "scenario.reply.expect": { label: "Each reply must", empty: "anything" },
  "scenario.reply.failWhen": { label: "Fail a reply that", empty: "never" },
};

/** By the last part of the key, where a field means the same wherever it is (the parts of reply rules). */
const BY_KEY: Record<string, FieldText> = {
  prefixHex: { label: "Starts with (hex)" },
  hex: { label: "Bytes (hex)" },
  regex: { label: "Regular expression", hint: "Matches anywhere in the text; anchor with ^ for a prefix." },
  group: { label: "Group", hint: "Capture group (default 1; 0 is the whole match)." },
  field: { label: "JSON field", hint: "A dotted path, e.g. data.type" },
  equals: { label: "Equals", hint: "Text, a number or true/false; blank: the field only has to be there." },
  json: { label: "JSON field" },
  bytes: { label: "Bytes" },
  offset: { label: "Offset", unit: "B" },
};

/** What the choices of a union are called where the value alone says too little, keyed like TEXT (`…session.expect`). */
const VARIANTS: Record<string, string> = {
  "scenario.session.http": "Call an HTTP endpoint first",
  "scenario.session.send": "Send a message",
  "scenario.session.expect": "Wait for a reply",
  "scenario.session.wait": "Pause",
  "scenario.leave.send": "Send a message",
  "scenario.leave.wait": "Pause",
};

/** The choices of a keyed union (a reply rule, a capture's source), wherever it is. */
const KEYED_VARIANTS: Record<string, string> = {
  prefixHex: "starts with",
  regex: "matches a regular expression",
  json: "has a JSON field",
  bytes: "has bytes at an offset",
};

const SCENARIO_DESCRIPTIONS: Record<string, string> = {
  "ping-pong": "Every client pings the target and times the pong.",
  "echo-flood": "Every client sends messages as fast as allowed and counts the echoes.",
  "movement-sync": "Clients send position updates at a tick rate, as players moving in a shared world.",
  "login-storm": "Clients connect, log in and leave, over and over: the cost of arrivals.",
  script:
    "Every client runs a JavaScript module's client function on the agent: for what steps and templates cannot say, such as a game's own client SDK.",
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

/**
 * Text for a field by its text key (`scenario.ping-pong.intervalMs`): the exact key, then the key without its
 * variants (`scenario.intervalMs`), then a label made from the field's name.
 */
export function fieldText(textKey: string, variants: readonly string[] = []): FieldText {
  const key = textKey.split(".").pop() ?? textKey;
  const general = textKey
    .split(".")
    .filter((part) => !variants.includes(part))
    .join(".");
  return TEXT[textKey] ?? TEXT[general] ?? BY_KEY[key] ?? humanize(key);
}

/**
 * What an optional field is when left out, by text key without variants or by the field's last key: the blank
 * choice of its select says it ("default (text)"), so nobody has to guess what "default" means.
 */
const DEFAULTS: Record<string, string> = {
  frames: "text",
  insecureSkipVerify: "no",
  client: "lean for ws://, ws for wss://",
  byteOrder: "big",
  lengthIncludesHeader: "no",
  format: "text",
  method: "GET",
  policy: "never",
  login: "no",
  hold: "yes",
  "target.mode": "fast",
  "target.nodelay": "the mode's",
  "target.nc": "the mode's",
  "target.ackNoDelay": "no",
  "target.stream": "no: message mode",
  bytes: "4",
  "scenario.match": 'JSON field "seq"',
  "load.shape": "ramp-up then hold",
  "load.shape.mode": "fixed",
  "scenario.broadcast.filter": "every message",
  "scenario.broadcast.sentAtUs": "the agent's own send time",
  failWhen: "never fail early",
  "network.direction": "both: up and down",
};

/** The blank choice of an optional select: the table's own words, else "default (…)" naming what the default is. */
export function blankChoiceText(textKey: string, variants: readonly string[], defaultValue?: unknown): string {
  const text = fieldText(textKey, variants);
  if (text.empty) return text.empty;
  if (defaultValue !== undefined && typeof defaultValue !== "object") return `default (${String(defaultValue)})`;
  const general = textKey
    .split(".")
    .filter((part) => !variants.includes(part))
    .join(".");
  const named = DEFAULTS[general] ?? DEFAULTS[textKey.split(".").pop() ?? ""];
  return named ? `default (${named})` : "none";
}

/** The name of a union's choice: from the table, else the value itself (a scenario kind, a protocol). */
export function variantLabel(textKey: string, variants: readonly string[], value: string, keyed = false): string {
  const general = textKey
    .split(".")
    .filter((part) => !variants.includes(part))
    .join(".");
  return (
    VARIANTS[`${textKey}.${value}`] ??
    VARIANTS[`${general}.${value}`] ??
    (keyed ? KEYED_VARIANTS[value] : undefined) ??
    value
  );
}

/** True when the table has text for this key, rather than a label made up from the field name. */
export function hasFieldText(textKey: string, variants: readonly string[] = []): boolean {
  const general = textKey
    .split(".")
    .filter((part) => !variants.includes(part))
    .join(".");
  return textKey in TEXT || general in TEXT;
}

export function scenarioDescription(kind: string): string | undefined {
  return SCENARIO_DESCRIPTIONS[kind];
}

/** A number field's limits from the schema, in its unit: "0 to 10,000 ms", "at least 1 clients"; none without any. */
export function limitsText(node: { kind: string; min?: number; max?: number }, unit?: string): string | undefined {
  if (node.kind !== "number" && node.kind !== "integer") return undefined;
  const tail = unit && unit !== "of 1" ? ` ${unit}` : "";
  const max = node.max !== undefined && node.max < Number.MAX_SAFE_INTEGER ? node.max : undefined;
  if (node.min !== undefined && max !== undefined)
    return `${formatDecimal(node.min, 3)} to ${formatDecimal(max, 3)}${tail}.`;
  if (node.min !== undefined) return `At least ${formatDecimal(node.min, 3)}${tail}.`;
  return max === undefined ? undefined : `At most ${formatDecimal(max, 3)}${tail}.`;
}
