import type { AgentCapabilities } from "@throng/protocol/agent";
import type { Db } from "../client";
import { updateOrgRow } from "./org-rows";

export interface EnrolmentTokenRow {
  id: string;
  orgId: string;
  expiresAt: Date;
  revokedAt: Date | null;
  singleUse: boolean;
  usedAt: Date | null;
}

/** The machine an agent runs on, as its hello describes it. */
interface AgentMachine {
  hostname: string;
  os: string;
  arch: string;
  cores: number;
  memoryBytes: number;
  version: string;
  labels: Record<string, string>;
}

export interface AgentRow extends AgentMachine {
  id: string;
  orgId: string;
  /** "load" or "watch": what the agent declared in its last hello. */
  role: string;
  /** What it said it can hold in its last hello; null when it did not say. */
  capacity: AgentCapacityRow | null;
  /** What its owner lets it run, from its last hello; null when it did not say. */
  capabilities: AgentCapabilities | null;
  connected: boolean;
  lastSeenAt: Date | null;
  revokedAt: Date | null;
  currentRunId: string | null;
  ip: string | null;
}

/** An agent's open-file limit and engine processes (migration 021). */
export interface AgentCapacityRow {
  openFileLimit: number;
  clientsPerEngine: number;
  maxEngines: number;
}

export interface AgentHost extends AgentMachine {
  ip: string | null;
  /** Omitted: "load". */
  role?: string;
  /** Omitted: not said (stored as null). */
  capacity?: AgentCapacityRow;
  /** Omitted: not said (stored as null). */
  capabilities?: AgentCapabilities;
}

/** The capacity columns of a hello: all three, or null. */
function capacityColumns(capacity: AgentCapacityRow | undefined) {
  return {
    open_file_limit: capacity?.openFileLimit ?? null,
    clients_per_engine: capacity?.clientsPerEngine ?? null,
    max_engines: capacity?.maxEngines ?? null,
  };
}

/** The columns a hello sets: the host, its role (default "load"), capacity and capabilities (null when not said). */
function hostColumns(host: AgentHost) {
  return {
    hostname: host.hostname,
    os: host.os,
    arch: host.arch,
    cores: host.cores,
    memory_bytes: host.memoryBytes,
    version: host.version,
    labels: JSON.stringify(host.labels),
    ip: host.ip,
    role: host.role ?? "load",
    ...capacityColumns(host.capacity),
    capabilities: host.capabilities ? JSON.stringify(host.capabilities) : null,
  };
}

/** An agent row's capacity, when its hello said it. */
function capacityOf(row: {
  openFileLimit: number | null;
  clientsPerEngine: number | null;
  maxEngines: number | null;
}): AgentCapacityRow | null {
  return row.openFileLimit !== null && row.clientsPerEngine !== null && row.maxEngines !== null
    ? { openFileLimit: row.openFileLimit, clientsPerEngine: row.clientsPerEngine, maxEngines: row.maxEngines }
    : null;
}

const ACTIVE_RUN_STATUSES = ["queued", "preparing", "running", "stopping", "degraded"];

/** The columns an AgentRow is read from (its capacity as three). */
const agentColumns = [
  "a.id",
  "a.org_id as orgId",
  "a.hostname",
  "a.os",
  "a.arch",
  "a.cores",
  "a.memory_bytes as memoryBytes",
  "a.version",
  "a.labels",
  "a.role",
  "a.connected",
  "a.last_seen_at as lastSeenAt",
  "a.revoked_at as revokedAt",
  "a.ip",
  "a.open_file_limit as openFileLimit",
  "a.clients_per_engine as clientsPerEngine",
  "a.max_engines as maxEngines",
  "a.capabilities",
] as const;

/** Enrolment tokens: made by a user, spent by an agent's first hello. */
function createEnrolmentTokens(db: Db) {
  return {
    async insertEnrolmentToken(
      orgId: string,
      t: { id: string; tokenHash: string; createdBy: string | null; expiresAt: Date; singleUse: boolean },
    ) {
      await db
        .insertInto("enrolment_tokens")
        .values({
          id: t.id,
          org_id: orgId,
          token_hash: t.tokenHash,
          created_by: t.createdBy,
          expires_at: t.expiresAt,
          single_use: t.singleUse,
        })
        .execute();
    },
    /** Spends a single-use token; false when another agent spent it first (the update is the lock). */
    async consumeEnrolmentToken(orgId: string, tokenId: string): Promise<boolean> {
      const result = await updateOrgRow(db, "enrolment_tokens", orgId, "id", tokenId)
        .set({ used_at: new Date() })
        .where("used_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async findEnrolmentTokenByHash(tokenHash: string): Promise<EnrolmentTokenRow | undefined> {
      return db
        .selectFrom("enrolment_tokens")
        .select([
          "id",
          "org_id as orgId",
          "expires_at as expiresAt",
          "revoked_at as revokedAt",
          "single_use as singleUse",
          "used_at as usedAt",
        ])
        .where("token_hash", "=", tokenHash)
        .executeTakeFirst();
    },
  };
}

/** An agent's own row: enrolled, its credential looked up, its host and capacity as its hello reports them. */
function createAgentRegistration(db: Db) {
  return {
    async insertAgent(orgId: string, agent: { id: string; secretHash: string } & AgentHost) {
      await db
        .insertInto("agents")
        .values({
          id: agent.id,
          org_id: orgId,
          secret_hash: agent.secretHash,
          ...hostColumns(agent),
        })
        .execute();
    },
    async findAgentCredential(
      agentId: string,
    ): Promise<{ orgId: string; secretHash: string; revokedAt: Date | null } | undefined> {
      return db
        .selectFrom("agents")
        .select(["org_id as orgId", "secret_hash as secretHash", "revoked_at as revokedAt"])
        .where("id", "=", agentId)
        .executeTakeFirst();
    },
    async updateAgentHost(orgId: string, agentId: string, host: AgentHost) {
      await updateOrgRow(db, "agents", orgId, "id", agentId).set(hostColumns(host)).execute();
    },
  };
}

/** Whether an agent is connected and when it was last heard from. */
function createAgentPresence(db: Db) {
  return {
    async markSeen(orgId: string, agentId: string, connected: boolean, at: Date) {
      await updateOrgRow(db, "agents", orgId, "id", agentId).set({ connected, last_seen_at: at }).execute();
    },
    /** The agent's connection that closed at `closedAt` is gone; a no-op if it has been heard from since (it came back). */
    async markDisconnected(orgId: string, agentId: string, closedAt: Date) {
      await updateOrgRow(db, "agents", orgId, "id", agentId)
        .set({ connected: false })
        .where((eb) => eb.or([eb("last_seen_at", "is", null), eb("last_seen_at", "<=", closedAt)]))
        .execute();
    },
    /** Heartbeats of many agents of one org in one statement. */
    async markSeenMany(orgId: string, agentIds: readonly string[], at: Date) {
      if (agentIds.length === 0) return;
      await db
        .updateTable("agents")
        .set({ connected: true, last_seen_at: at })
        .where("org_id", "=", orgId)
        .where("id", "in", agentIds)
        .execute();
    },
  };
}

/** The org's agents as the inventory shows them: listed with their current run, labelled, revoked. */
function createAgentInventory(db: Db) {
  return {
    /** Revoked agents are refused at their next hello and hidden from the inventory. */
    async revokeAgent(orgId: string, agentId: string, at: Date): Promise<boolean> {
      const result = await updateOrgRow(db, "agents", orgId, "id", agentId)
        .set({ revoked_at: at, connected: false })
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async setLabels(orgId: string, agentId: string, labels: Record<string, string>): Promise<boolean> {
      const result = await updateOrgRow(db, "agents", orgId, "id", agentId)
        .set({ labels: JSON.stringify(labels) })
        .where("revoked_at", "is", null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
    async listAgents(orgId: string, ids?: string[]): Promise<AgentRow[]> {
      let query = db
        .selectFrom("agents as a")
        .select(agentColumns)
        .select((eb) =>
          eb
            .selectFrom("run_shards as s")
            .innerJoin("runs as r", "r.id", "s.run_id")
            .select("s.run_id")
            .whereRef("s.agent_id", "=", "a.id")
            .where("r.status", "in", ACTIVE_RUN_STATUSES)
            .orderBy("r.created_at", "desc")
            .limit(1)
            .as("currentRunId"),
        )
        .where("a.org_id", "=", orgId)
        .where("a.revoked_at", "is", null);
      if (ids) {
        if (ids.length === 0) return [];
        query = query.where("a.id", "in", ids);
      }
      const rows = await query.orderBy("a.created_at", "asc").execute();
      return rows.map(({ openFileLimit, clientsPerEngine, maxEngines, ...row }) => ({
        ...row,
        capacity: capacityOf({ openFileLimit, clientsPerEngine, maxEngines }),
      }));
    },
  };
}

/** Enrolment tokens and agents. Lookups by secret hash are the only ones without an orgId: the secret names the org. */
export function createFleetRepo(db: Db) {
  return {
    ...createEnrolmentTokens(db),
    ...createAgentRegistration(db),
    ...createAgentPresence(db),
    ...createAgentInventory(db),
  };
}
export type FleetRepo = ReturnType<typeof createFleetRepo>;
