// Tsung (Debian's `tsung`, an Erlang VM) on the bench scenarios: one XML config per scenario, the websocket
// plugin for S1/S2-WS/S3 and the raw TCP plugin (ts_raw) with the 2-byte length prefix for S2-TCP.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pingFrame } from "../../src/scenarios/ping-pong";
import { scenarioSeconds, type VsScenario, type VsTarget, type VsTool } from "./shared";

const DTD = "/usr/share/tsung/tsung-1.0.dtd";

function has(command: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${command}`]).status === 0;
}

/** apt-get install -y tsung, with `apt-get update` first when the package list does not know it. */
function installTsung(): string | undefined {
  if (has("tsung")) return undefined;
  console.error("--vs tsung: tsung is not installed; running apt-get install -y tsung");
  const install = () =>
    spawnSync("apt-get", ["install", "-y", "tsung"], {
      stdio: ["ignore", "inherit", "inherit"],
      env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
    }).status;
  if (install() !== 0) {
    console.error("--vs tsung: install failed; running apt-get update and trying again");
    spawnSync("apt-get", ["update"], { stdio: ["ignore", "inherit", "inherit"] });
    if (install() !== 0) return "apt-get install -y tsung failed (see the output above)";
  }
  return has("tsung") ? undefined : "tsung is still not on PATH after apt-get install";
}

const xmlText = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function session(scenario: VsScenario, loops: number): { type: string; body: string } {
  if (scenario.kind === "s1") {
    // One 164-byte ping, wait for its 71-byte pong (ack="parse"), then think for the interval: one ping per
    // interval per user (plus the round trip, which is well under 1% of a second here).
    const ping = xmlText(pingFrame(1, 0, 164, 71));
    return {
      type: "ts_websocket",
      body: `<request><websocket type="connect" path="/ws"></websocket></request>
      <for from="1" to="${loops}" var="i">
        <request><websocket type="message" frame="text" ack="parse">${ping}</websocket></request>
        <thinktime value="${scenario.intervalMs / 1000}" random="false"/>
      </for>`,
    };
  }
  if (scenario.kind === "s2" && scenario.protocol === "websocket") {
    // 8-byte binary frames, each waiting for its echo: one in flight per connection, as fast as possible.
    return {
      type: "ts_websocket",
      body: `<request><websocket type="connect" path="/ws"></websocket></request>
      <for from="1" to="${loops}" var="i">
        <request><websocket type="message" frame="binary" ack="parse">abcdefgh</websocket></request>
      </for>`,
    };
  }
  if (scenario.kind === "s2") {
    // The 2-byte big-endian length prefix holds a NUL byte, which XML cannot carry: the frame is built once
    // per user by an Erlang expression and substituted into each raw request; ack="local" waits for the echo.
    return {
      type: "ts_raw",
      body: `<setdynvars sourcetype="eval" code="fun({_Pid,_DynVars}) -> [0,8,97,98,99,100,101,102,103,104] end."><var name="frame"/></setdynvars>
      <for from="1" to="${loops}" var="i">
        <request subst="true"><raw data="%%_frame%%" ack="local"></raw></request>
      </for>`,
    };
  }
  return {
    type: "ts_websocket",
    body: `<request><websocket type="connect" path="/ws"></websocket></request>
      <thinktime value="${scenario.holdSec}" random="false"/>`,
  };
}

/** The Tsung configuration reproducing one bench scenario against the target. */
export function tsungConfig(scenario: VsScenario, target: VsTarget): string {
  const wsPort = Number(new URL(target.wsUrl).port);
  const port = scenario.kind === "s2" && scenario.protocol === "tcp" ? target.tcpPort : wsPort;
  const users = scenario.kind === "s2" ? scenario.connections : scenario.clients;
  // Arrivals: S1 at its ramp's rate, S2 at once, S3 as fast as Tsung launches them. maxnumber caps the users;
  // the phase itself is 5 s longer, since Tsung ends a phase that overruns with the rest never launched.
  const arrivalRate =
    scenario.kind === "s1" ? Math.ceil(users / scenario.rampUpSec) : scenario.kind === "s2" ? 1_000 : 50_000;
  // Each S1 user pings for ramp + hold, as a Throng client does; S3 users hold; the load's duration is only a
  // bound (with slack for Tsung's own start), except for S2 whose endless loop it ends.
  const sessionSec = scenarioSeconds(scenario);
  const totalSec =
    scenario.kind === "s2" ? scenario.durationSec : sessionSec + (scenario.kind === "s1" ? scenario.rampUpSec : 0) + 15;
  const loops = scenario.kind === "s1" ? Math.ceil((sessionSec * 1000) / scenario.intervalMs) : 100_000_000;
  const { type, body } = session(scenario, loops);
  return `<?xml version="1.0"?>
<!DOCTYPE tsung SYSTEM "${DTD}">
<tsung loglevel="warning" version="1.0">
  <clients><client host="localhost" use_controller_vm="true" maxusers="${users + 1000}"/></clients>
  <servers><server host="127.0.0.1" port="${port}" type="tcp"/></servers>
  <load duration="${totalSec}" unit="second">
    <arrivalphase phase="1" duration="${Math.ceil(users / arrivalRate) + 5}" unit="second">
      <users maxnumber="${users}" arrivalrate="${arrivalRate}" unit="second"/>
    </arrivalphase>
  </load>
  <sessions>
    <session name="${scenario.kind}" probability="100" type="${type}">
      ${body}
    </session>
  </sessions>
</tsung>
`;
}

/** Tsung's own figures from tsung.log: the mean of each `stats: NAME` line's interval means, weighted by count. */
function tsungLatency(logDir: string): string | undefined {
  if (!existsSync(logDir)) return undefined;
  const runs = readdirSync(logDir).sort();
  const log = runs.length ? join(logDir, runs[runs.length - 1]!, "tsung.log") : "";
  if (!log || !existsSync(log)) return undefined;
  const means = new Map<string, { sum: number; count: number; max: number }>();
  // "stats: request <count> <mean> <stddev> <max> <min> <mean since start> <count since start>"
  for (const match of readFileSync(log, "utf8").matchAll(
    /^stats: (request|connect) (\d+) ([\d.]+) [\d.]+ ([\d.]+)/gm,
  )) {
    const entry = means.get(match[1]!) ?? { sum: 0, count: 0, max: 0 };
    entry.sum += Number(match[3]) * Number(match[2]);
    entry.count += Number(match[2]);
    entry.max = Math.max(entry.max, Number(match[4]));
    means.set(match[1]!, entry);
  }
  const parts = [...means]
    .filter(([, e]) => e.count > 0)
    .map(([name, e]) => `${name} mean ${(e.sum / e.count).toFixed(2)} / max ${e.max.toFixed(1)} ms`);
  return parts.length ? parts.join("; ") : undefined;
}

export function tsungTool(): VsTool {
  let hadEpmd = false;
  const logDirOf = (dir: string, scenario: VsScenario) =>
    join(dir, `tsung-${scenario.kind}-${scenario.kind === "s2" ? scenario.protocol : scenario.clients}`);
  return {
    name: "Tsung",
    async prepare() {
      const why = installTsung();
      hadEpmd = spawnSync("pgrep", ["-x", "epmd"]).status === 0;
      return why;
    },
    command(scenario, target, dir) {
      const config = join(
        dir,
        `tsung-${scenario.kind}-${scenario.kind === "s2" ? scenario.protocol : scenario.clients}.xml`,
      );
      writeFileSync(config, tsungConfig(scenario, target));
      const logDir = logDirOf(dir, scenario);
      mkdirSync(logDir, { recursive: true });
      // -n: no web GUI; -I 127.0.0.1: the Erlang node on loopback whatever the host name resolves to.
      return { argv: ["tsung", "-n", "-I", "127.0.0.1", "-f", config, "-l", logDir, "start"] };
    },
    latency: (scenario, dir) => tsungLatency(logDirOf(dir, scenario)),
    cleanup() {
      // The Erlang port mapper Tsung starts outlives the run (it is not in Tsung's process tree): stop ours.
      if (!hadEpmd && spawnSync("pgrep", ["-x", "epmd"]).status === 0) {
        try {
          execFileSync("epmd", ["-kill"], { stdio: "ignore" });
        } catch {
          // Nothing registered or already gone.
        }
      }
    },
  };
}
