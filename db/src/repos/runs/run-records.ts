import { sql } from "kysely";
import type { PlanSpec } from "@throng/protocol/plan";
import type { Db } from "../../client";
import { readStoredPlan } from "../../stored-plan";
import { updateOrgRow } from "../org-rows";
import type { RunFilterRow, RunRow } from "../runs";

/** A row as core sees it: its plan parsed once, here. */
function runOf<R extends { id: string; spec: unknown }>(row: R): R & { spec: PlanSpec } {
  return { ...row, spec: readStoredPlan(row.spec, `run ${row.id}`) };
}

/** The org's runs with their plan's name and the names of who started them and last edited their notes. */
function runQuery(db: Db, orgId: string) {
  return (
    db
      .selectFrom("runs as r")
      .innerJoin("plans as p", "p.id", "r.plan_id")
      // Who started a run and last edited its notes are kept as actors (an email, "token ci"); a member's name is
      // read here.
      .leftJoin("user as starter", "starter.email", "r.started_by")
      .leftJoin("user as editor", "editor.email", "r.notes_edited_by")
      .select([
        "r.id",
        "r.org_id as orgId",
        "r.plan_id as planId",
        "p.name as planName",
        "r.plan_version as planVersion",
        "r.spec",
        "r.status",
        "r.error",
        "r.summary",
        "r.verdict",
        "r.capacity",
        "r.start_at as startAt",
        "r.created_at as createdAt",
        "r.started_at as startedAt",
        "r.ended_at as endedAt",
        "r.started_by as startedBy",
        "starter.name as startedByName",
        "r.note",
        "r.tags",
        "r.notes_edited_by as notesEditedBy",
        "editor.name as notesEditedByName",
        "r.notes_edited_at as notesEditedAt",
        "r.judged_snapshots as judgedSnapshots",
      ])
      .where("r.org_id", "=", orgId)
  );
}

/** `query` narrowed to the runs matching `filter`; each field left out matches every run. */
function filteredRuns<T extends ReturnType<typeof runQuery>>(query: T, filter: RunFilterRow): T {
  let q = query;
  if (filter.status !== undefined) q = q.where("r.status", "=", filter.status) as T;
  if (filter.outcome !== undefined) q = q.where(sql<string>`r.verdict ->> 'outcome'`, "=", filter.outcome) as T;
  if (filter.planId !== undefined) q = q.where("r.plan_id", "=", filter.planId) as T;
  if (filter.createdFrom !== undefined) q = q.where("r.created_at", ">=", filter.createdFrom) as T;
  if (filter.createdBefore !== undefined) q = q.where("r.created_at", "<", filter.createdBefore) as T;
  // Containment, so runs_tags_idx (GIN) answers it.
  if (filter.tag !== undefined) q = q.where(sql<boolean>`r.tags @> array[${filter.tag}]::text[]`) as T;
  return q;
}

/** A run's own row: storing it, reading it (alone, listed, a filtered page) and its notes. */
export function createRunRecords(db: Db) {
  return {
    async insert(
      orgId: string,
      run: { id: string; planId: string; planVersion?: number; spec: PlanSpec; status: string; startedBy?: string },
    ) {
      await db
        .insertInto("runs")
        .values({
          id: run.id,
          org_id: orgId,
          plan_id: run.planId,
          plan_version: run.planVersion ?? null,
          spec: JSON.stringify(run.spec),
          status: run.status,
          started_by: run.startedBy ?? null,
        })
        .execute();
    },
    async get(orgId: string, id: string): Promise<RunRow | undefined> {
      const row = await runQuery(db, orgId).where("r.id", "=", id).executeTakeFirst();
      return row && runOf(row);
    },
    async list(orgId: string, limit = 100): Promise<RunRow[]> {
      return (await runQuery(db, orgId).orderBy("r.created_at", "desc").limit(limit).execute()).map(runOf);
    },
    /** One page of the runs matching `filter`, newest first, and how many match over every page. */
    async listPage(
      orgId: string,
      filter: RunFilterRow,
      limit: number,
      offset: number,
    ): Promise<{ rows: RunRow[]; matching: number }> {
      const [rows, count] = await Promise.all([
        filteredRuns(runQuery(db, orgId), filter)
          .orderBy("r.created_at", "desc")
          .orderBy("r.id", "desc")
          .limit(limit)
          .offset(offset)
          .execute(),
        filteredRuns(runQuery(db, orgId), filter)
          .clearSelect()
          .select((eb) => eb.fn.countAll<string>().as("n"))
          .executeTakeFirstOrThrow(),
      ]);
      return { rows: rows.map(runOf), matching: Number(count.n) };
    },
    /** Sets a run's note and/or tags and who changed them; false when the org has no such run. */
    async updateNotes(
      orgId: string,
      id: string,
      notes: { note?: string; tags?: string[]; editedBy: string },
    ): Promise<boolean> {
      const result = await updateOrgRow(db, "runs", orgId, "id", id)
        .set({
          ...(notes.note !== undefined && { note: notes.note }),
          ...(notes.tags !== undefined && { tags: notes.tags }),
          notes_edited_by: notes.editedBy,
          notes_edited_at: sql<Date>`now()`,
        })
        .executeTakeFirst();
      return Number(result.numUpdatedRows) === 1;
    },
  };
}
