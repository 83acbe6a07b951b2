import type { Db } from "../client";
import { deleteOrgRow, selectOrgRow, selectOrgRows, updateOrgRow } from "./org-rows";

export interface NotificationChannelRow {
  id: string;
  orgId: string;
  kind: string;
  name: string;
  url: string;
  events: string[];
  createdAt: Date;
}

export interface NotificationDeliveryRow {
  id: string;
  orgId: string;
  channelId: string;
  channelName: string;
  runId: string | null;
  /** 'schedule-failed': the plan whose scheduled run did not start, and why. */
  planId: string | null;
  detail: string | null;
  event: string;
  status: string;
  attempts: number;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const channelColumns = ["id", "org_id as orgId", "kind", "name", "url", "events", "created_at as createdAt"] as const;

/** Notification channels and their delivery log; every method is scoped by orgId. */
export function createNotificationRepo(db: Db) {
  const deliveries = (orgId: string) =>
    db
      .selectFrom("notification_deliveries as d")
      .innerJoin("notification_channels as c", "c.id", "d.channel_id")
      .select([
        "d.id",
        "d.org_id as orgId",
        "d.channel_id as channelId",
        "c.name as channelName",
        "d.run_id as runId",
        "d.plan_id as planId",
        "d.detail",
        "d.event",
        "d.status",
        "d.attempts",
        "d.response_status as responseStatus",
        "d.last_error as lastError",
        "d.created_at as createdAt",
        "d.updated_at as updatedAt",
      ])
      .where("d.org_id", "=", orgId);

  return {
    async insertChannel(
      orgId: string,
      channel: { id: string; kind: string; name: string; url: string; events: string[] },
    ): Promise<NotificationChannelRow> {
      return db
        .insertInto("notification_channels")
        .values({ ...channel, org_id: orgId })
        .returning(channelColumns)
        .executeTakeFirstOrThrow();
    },
    async listChannels(orgId: string): Promise<NotificationChannelRow[]> {
      return selectOrgRows(db, "notification_channels", orgId)
        .select(channelColumns)
        .orderBy("created_at", "asc")
        .execute();
    },
    async getChannel(orgId: string, id: string): Promise<NotificationChannelRow | undefined> {
      return selectOrgRow(db, "notification_channels", orgId, "id", id).select(channelColumns).executeTakeFirst();
    },
    async deleteChannel(orgId: string, id: string): Promise<boolean> {
      return deleteOrgRow(db, "notification_channels", orgId, "id", id);
    },
    /** A pending delivery; false when this run's end was already given to this channel (a run closed twice). */
    async insertDelivery(
      orgId: string,
      delivery: {
        id: string;
        channelId: string;
        runId: string | null;
        event: string;
        planId?: string;
        detail?: string;
      },
    ): Promise<boolean> {
      const rows = await db
        .insertInto("notification_deliveries")
        .values({
          id: delivery.id,
          org_id: orgId,
          channel_id: delivery.channelId,
          run_id: delivery.runId,
          event: delivery.event,
          status: "pending",
          plan_id: delivery.planId ?? null,
          detail: delivery.detail ?? null,
        })
        .onConflict((oc) => oc.columns(["channel_id", "run_id"]).where("run_id", "is not", null).doNothing())
        .returning("id")
        .execute();
      return rows.length === 1;
    },
    async getDelivery(orgId: string, id: string): Promise<NotificationDeliveryRow | undefined> {
      return deliveries(orgId).where("d.id", "=", id).executeTakeFirst();
    },
    async listDeliveries(orgId: string, limit = 50): Promise<NotificationDeliveryRow[]> {
      return deliveries(orgId).orderBy("d.created_at", "desc").limit(limit).execute();
    },
    /** One attempt's outcome: delivered, still pending (to be retried), or failed for good. */
    async recordAttempt(
      orgId: string,
      id: string,
      outcome: { status: string; responseStatus: number | null; error: string | null },
    ): Promise<void> {
      await updateOrgRow(db, "notification_deliveries", orgId, "id", id)
        .set((eb) => ({
          status: outcome.status,
          response_status: outcome.responseStatus,
          last_error: outcome.error,
          attempts: eb("attempts", "+", 1),
          updated_at: new Date(),
        }))
        .execute();
    },
  };
}
export type NotificationRepo = ReturnType<typeof createNotificationRepo>;
