import { ThrongError } from "@throng/protocol/errors";
import type { AgentLabels, AgentView, EnrolmentTokenCreated } from "@throng/protocol/api";
import { Channel, type AgentControl } from "@throng/protocol/jobs";
import { AgentCapabilities, AgentCloseCode, AgentRole, type Hello } from "@throng/protocol/agent";
import type { AgentRow, FleetRepo } from "@throng/db/repos/fleet";
import type { Bus, Clock } from "../ports";
import { agentVersionProblem } from "./agent-version";
import type { AuditLog } from "../orgs/audit";
import { authorize, type Actor } from "../orgs/permissions";
import {
  AGENT_SECRET_PREFIX,
  ENROLMENT_TOKEN_PREFIX,
  findLiveSecret,
  generateSecret,
  hashSecret,
  isWellFormedSecret,
  secretMatchesHash,
} from "./secrets";

export interface FleetConfig {
  /** What agents dial and what the install command names. */
  apiPublicUrl: string;
  heartbeatIntervalMs: number;
}

export interface AuthenticatedAgent {
  agentId: string;
  orgId: string;
  /** Only after an enrolment: the credential the agent keeps for later connections. */
  credential?: { agentId: string; secret: string };
}

/** An agent counts as online while connected and heard from within three heartbeats. */
function agentStatus(row: AgentRow, now: number, heartbeatMs: number): AgentView["status"] {
  const fresh = row.lastSeenAt !== null && now - row.lastSeenAt.getTime() < heartbeatMs * 3;
  if (!row.connected || !fresh) return "offline";
  return row.currentRunId ? "busy" : "online";
}

function toView(row: AgentRow, now: number, heartbeatMs: number): AgentView {
  return {
    id: row.id,
    hostname: row.hostname,
    os: row.os,
    arch: row.arch,
    cores: row.cores,
    memoryBytes: row.memoryBytes,
    version: row.version,
    labels: row.labels,
    status: agentStatus(row, now, heartbeatMs),
    lastSeenAt: row.lastSeenAt?.toISOString() ?? null,
    currentRunId: row.currentRunId,
    ip: row.ip,
    role: AgentRole.parse(row.role),
    ...(row.capacity ? { capacity: row.capacity } : {}),
    ...capabilitiesOf(row),
  };
}

/** The stored capabilities, read with their schema: a row that does not parse says nothing rather than something wrong. */
function capabilitiesOf(row: AgentRow): { capabilities?: AgentCapabilities } {
  const parsed = AgentCapabilities.safeParse(row.capabilities);
  return row.capabilities && parsed.success ? { capabilities: parsed.data } : {};
}

/** Enrolment tokens, agent credentials and the fleet inventory. */
export function createFleetService(deps: {
  fleet: FleetRepo;
  bus: Bus;
  clock: Clock;
  audit: AuditLog;
  config: FleetConfig;
}) {
  const { fleet, bus, clock, audit, config } = deps;
  const hostOf = (hello: Hello, ip: string | null) => ({
    ...hello.host,
    version: hello.agentVersion,
    labels: hello.labels,
    ip,
    role: hello.role ?? "load",
    ...(hello.capacity ? { capacity: hello.capacity } : {}),
    ...(hello.capabilities ? { capabilities: hello.capabilities } : {}),
  });

  async function enrol(token: string, hello: Hello, ip: string | null): Promise<AuthenticatedAgent> {
    const refused = new ThrongError(
      "unauthenticated",
      "Unknown, expired, used or revoked enrolment token: create a new one on the Agents page",
    );
    const row = await findLiveSecret(token, ENROLMENT_TOKEN_PREFIX, fleet.findEnrolmentTokenByHash, clock.now());
    if (!row) throw refused;
    if (row.singleUse && !(await fleet.consumeEnrolmentToken(row.orgId, row.id))) throw refused;
    const agentId = crypto.randomUUID();
    const secret = generateSecret(AGENT_SECRET_PREFIX);
    await fleet.insertAgent(row.orgId, { id: agentId, secretHash: hashSecret(secret), ...hostOf(hello, ip) });
    await audit.record(row.orgId, `agent ${hello.host.hostname}`, "agent.enrolled", agentId, {
      hostname: hello.host.hostname,
      ip,
      token: row.id,
    });
    return { agentId, orgId: row.orgId, credential: { agentId, secret } };
  }

  // Heartbeats are written together: a fleet of n agents beats n/interval times a second, and one UPDATE (one
  // commit) per beat is most of what an idle fleet costs the database. A beat resolves once its write is done.
  let heardWaiting = new Map<string, Set<string>>();
  let heardWaiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  let heardWriting = false;
  let heardScheduled = false;
  function scheduleHeard() {
    if (heardWriting || heardScheduled || heardWaiters.length === 0) return;
    heardScheduled = true;
    setImmediate(() => {
      heardScheduled = false;
      const [byOrg, waiters] = [heardWaiting, heardWaiters];
      [heardWaiting, heardWaiters, heardWriting] = [new Map(), [], true];
      const at = new Date(clock.now());
      void (async () => {
        for (const [orgId, ids] of byOrg) await fleet.markSeenMany(orgId, [...ids], at);
      })()
        .then(
          () => {
            for (const w of waiters) w.resolve();
          },
          (err: unknown) => {
            for (const w of waiters) w.reject(err);
          },
        )
        .finally(() => {
          heardWriting = false;
          scheduleHeard();
        });
    });
  }

  async function listAgents(orgId: string, ids?: string[]): Promise<AgentView[]> {
    const now = clock.now();
    return (await fleet.listAgents(orgId, ids)).map((row) => toView(row, now, config.heartbeatIntervalMs));
  }

  return {
    /** Internal (orchestration): every agent of the org. */
    listAgents,

    /** The inventory as a user sees it. */
    async agents(actor: Actor): Promise<AgentView[]> {
      authorize(actor, "agent.read");
      return listAgents(actor.orgId);
    },

    async createEnrolmentToken(
      actor: Actor,
      options: { expiresInMinutes: number; singleUse: boolean },
    ): Promise<EnrolmentTokenCreated> {
      authorize(actor, "agent.enrol");
      const { orgId, userId } = actor;
      const token = generateSecret(ENROLMENT_TOKEN_PREFIX);
      const expiresAt = new Date(clock.now() + options.expiresInMinutes * 60_000);
      await fleet.insertEnrolmentToken(orgId, {
        id: crypto.randomUUID(),
        tokenHash: hashSecret(token),
        createdBy: userId,
        expiresAt,
        singleUse: options.singleUse,
      });
      await audit.record(orgId, actor.label, "enrolment-token.created", null, {
        expiresAt: expiresAt.toISOString(),
        singleUse: options.singleUse,
      });
      const args = `connect --server ${config.apiPublicUrl} --token ${token}`;
      return {
        token,
        expiresAt: expiresAt.toISOString(),
        // npx installs the agent package this API serves (no public registry needed): see agent-install.routes.ts.
        commands: {
          node: `node agent/dist/throng-agent.mjs ${args}`,
          npx: `npx --yes ${config.apiPublicUrl}/agent/throng-agent.tgz ${args}`,
        },
      };
    },

    /** Checks a hello's version and token or credential; throws with what to do. */
    async authenticate(hello: Hello, ip: string | null): Promise<AuthenticatedAgent> {
      const versionProblem = agentVersionProblem(hello.agentVersion);
      if (versionProblem) throw new ThrongError("unsupported_version", versionProblem);
      if (hello.auth.kind === "enrolment") return enrol(hello.auth.token, hello, ip);
      const row = await fleet.findAgentCredential(hello.auth.agentId);
      if (!row || !secretMatchesHash(hello.auth.secret, row.secretHash)) {
        throw new ThrongError("unauthenticated", "Unknown agent credential: enrol again with a new enrolment token");
      }
      if (row.revokedAt)
        throw new ThrongError("unauthenticated", "This agent was revoked: enrol again with a new enrolment token");
      await fleet.updateAgentHost(row.orgId, hello.auth.agentId, hostOf(hello, ip));
      return { agentId: hello.auth.agentId, orgId: row.orgId };
    },

    /**
     * Whether `secret` is this agent's live credential: the gateway's cheap check at the WebSocket upgrade, so an
     * enrolled agent can use the slots kept for it during a connection flood (a malformed secret costs no query).
     */
    async provesCredential(agentId: string, secret: string): Promise<boolean> {
      if (!isWellFormedSecret(secret, AGENT_SECRET_PREFIX)) return false;
      const row = await fleet.findAgentCredential(agentId);
      return !!row && !row.revokedAt && secretMatchesHash(secret, row.secretHash);
    },

    /** A heartbeat: the agent is connected and was seen now (written with the other beats of the moment). */
    heard(orgId: string, agentId: string): Promise<void> {
      return new Promise((resolve, reject) => {
        const ids = heardWaiting.get(orgId) ?? new Set<string>();
        heardWaiting.set(orgId, ids.add(agentId));
        heardWaiters.push({ resolve, reject });
        scheduleHeard();
      });
    },
    async markSeen(orgId: string, agentId: string, connected: boolean): Promise<void> {
      await fleet.markSeen(orgId, agentId, connected, new Date(clock.now()));
    },
    /** Its connection closed at `closedAt`: offline, unless it has said hello or beaten since (a retry may come late). */
    async markDisconnected(orgId: string, agentId: string, closedAt: Date): Promise<void> {
      await fleet.markDisconnected(orgId, agentId, closedAt);
    },

    /** Revokes an agent: refused from now on, and its live connection (on any API instance) is closed at once. */
    async revoke(actor: Actor, agentId: string): Promise<void> {
      authorize(actor, "agent.manage");
      const { orgId } = actor;
      if (!(await fleet.revokeAgent(orgId, agentId, new Date(clock.now())))) {
        throw new ThrongError("not_found", `No agent ${agentId} in this organisation`);
      }
      const control: AgentControl = {
        kind: "disconnect",
        code: AgentCloseCode.unauthenticated,
        reason: "This agent was revoked: enrol again with a new enrolment token",
      };
      await bus.publish(Channel.agentControl(agentId), control);
      await audit.record(orgId, actor.label, "agent.revoked", agentId);
    },

    async setLabels(actor: Actor, agentId: string, input: AgentLabels): Promise<AgentView> {
      authorize(actor, "agent.manage");
      const { orgId } = actor;
      const { labels } = input;
      if (!(await fleet.setLabels(orgId, agentId, labels)))
        throw new ThrongError("not_found", `No agent ${agentId} in this organisation`);
      await audit.record(orgId, actor.label, "agent.labels-changed", agentId, { labels });
      return (await listAgents(orgId, [agentId]))[0]!;
    },
  };
}
export type FleetService = ReturnType<typeof createFleetService>;
