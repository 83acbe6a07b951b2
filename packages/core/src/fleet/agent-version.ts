import { THRONG_VERSION } from "@throng/protocol/version";

function parse(version: string): [number, number, number] | null {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  return match ? [Number(match[1]), Number(match[2]), Number(match[3])] : null;
}

/**
 * Agents of the server's own release line are accepted: same major, and while on 0.x the same minor too
 * (0.x minors may break). Returns null when accepted, else the sentence to show the user.
 */
export function agentVersionProblem(agentVersion: string, serverVersion = THRONG_VERSION): string | null {
  const agent = parse(agentVersion);
  const server = parse(serverVersion)!;
  const line = server[0] === 0 ? `${server[0]}.${server[1]}.x` : `${server[0]}.x`;
  const advice = `this server needs throng-agent ${line} (it runs ${serverVersion})`;
  if (!agent) return `agent version "${agentVersion}" is not a version number; ${advice}`;
  const sameLine = agent[0] === server[0] && (server[0] !== 0 || agent[1] === server[1]);
  if (sameLine) return null;
  const older = agent[0] < server[0] || (agent[0] === server[0] && agent[1] < server[1]);
  return `throng-agent ${agentVersion} is too ${older ? "old" : "new"}; ${advice}`;
}
