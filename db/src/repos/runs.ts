import type { PlanSpec } from "@throng/protocol/plan";
import type { Db } from "../client";
import { createRunEventLog } from "./runs/run-event-log";
import { createRunLifecycle } from "./runs/run-lifecycle";
import { createRunRecords } from "./runs/run-records";
import { createRunShards } from "./runs/run-shards";

export interface RunRow {
  id: string;
  orgId: string;
  planId: string;
  planName: string;
  planVersion: number | null;
  /** The plan as the run was started with, parsed when the row is read. */
  spec: PlanSpec;
  status: string;
  error: string | null;
  summary: unknown;
  verdict: unknown;
  capacity: unknown;
  startAt: Date | null;
  createdAt: Date;
  startedAt: Date | null;
  endedAt: Date | null;
  startedBy: string | null;
  /** The name of the user whose email `startedBy` is; null for a token, a schedule or a user since deleted. */
  startedByName: string | null;
  note: string;
  tags: string[];
  notesEditedBy: string | null;
  notesEditedByName: string | null;
  notesEditedAt: Date | null;
  /** How many stored snapshots the summary and verdict were judged on; null before the run's closing judgement. */
  judgedSnapshots: number | null;
}

/** What GET /api/runs filters by; each left out matches every run. */
export interface RunFilterRow {
  status?: string;
  outcome?: string;
  planId?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  tag?: string;
}

export interface ShardRow {
  runId: string;
  agentId: string;
  shardIndex: number;
  clients: number;
  /** "load" or "watch" (a watcher's shard: no clients, samples of the server under test). */
  role: string;
  state: string;
  lastSeq: number | null;
  error: string | null;
}

export interface RunEventRow {
  at: Date;
  kind: string;
  agentId: string | null;
  message: string;
}

export type RunPatch = Partial<{
  status: string;
  error: string | null;
  summary: unknown;
  verdict: unknown;
  capacity: unknown;
  startAt: Date;
  /** null: the run ended before its planned start, so it never started. */
  startedAt: Date | null;
  endedAt: Date;
  judgedSnapshots: number;
}>;

/** Runs and their shards (one per agent), scoped by orgId: one part per concern, over the same `db`. */
export function createRunRepo(db: Db) {
  return {
    ...createRunRecords(db),
    ...createRunLifecycle(db),
    ...createRunEventLog(db),
    ...createRunShards(db),
  };
}
export type RunRepo = ReturnType<typeof createRunRepo>;
