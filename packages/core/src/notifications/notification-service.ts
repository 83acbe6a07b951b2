import { parseOrThrow, ThrongError } from "@throng/protocol/errors";
import {
  CreateNotificationChannel,
  NotificationDeliveryView,
  NotificationEvent,
  NotificationKind,
  type NotificationChannelView,
} from "@throng/protocol/notifications";
import type { Repos } from "@throng/db/repos";
import type { NotificationChannelRow, NotificationDeliveryRow } from "@throng/db/repos/notifications";
import type { Jobs } from "../ports";
import type { AuditLog } from "../orgs/audit";
import { authorize, type Actor } from "../orgs/permissions";
import { toRunView } from "../runs/run-view";
import { notificationBody, runDidNotPass, scheduleFailedBody } from "./notification-message";

/** Sends one JSON body to a URL; resolves with the answer's status, throws when no answer came (refused, timed out). */
export type NotificationPost = (url: string, body: unknown) => Promise<{ status: number }>;

function toChannelView(row: NotificationChannelRow): NotificationChannelView {
  return {
    id: row.id,
    kind: NotificationKind.parse(row.kind),
    name: row.name,
    host: new URL(row.url).host,
    events: row.events.map((event) => NotificationEvent.parse(event)),
    createdAt: row.createdAt.toISOString(),
  };
}

const toDeliveryView = (row: NotificationDeliveryRow): NotificationDeliveryView =>
  NotificationDeliveryView.parse({
    ...row,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  });

/**
 * Run notifications per organisation: channels (webhook or Slack), the delivery log, and the two worker steps:
 * a run ended (one delivery per channel that wants it) and one delivery attempt (retried by the queue).
 */
export function createNotificationService(deps: {
  repos: Repos;
  jobs: Jobs;
  post?: NotificationPost;
  dashboardUrl: string;
  audit?: Pick<AuditLog, "record">;
}) {
  const { repos, jobs } = deps;
  const runUrl = (runId: string) => `${deps.dashboardUrl.replace(/\/+$/, "")}/runs/${runId}`;
  const planUrl = (planId: string) => `${deps.dashboardUrl.replace(/\/+$/, "")}/plans/${planId}`;

  async function enqueue(
    orgId: string,
    channelId: string,
    runId: string | null,
    event: "run-ended" | "test" | "schedule-failed",
    schedule?: { planId: string; detail: string },
  ): Promise<string | null> {
    const id = crypto.randomUUID();
    if (!(await repos.notifications.insertDelivery(orgId, { id, channelId, runId, event, ...schedule }))) return null;
    await jobs.deliverNotification({ orgId, deliveryId: id });
    return id;
  }

  async function deliveryBody(orgId: string, kind: NotificationKind, delivery: NotificationDeliveryRow) {
    if (delivery.event === "schedule-failed") {
      const plan = delivery.planId ? await repos.plans.get(orgId, delivery.planId) : undefined;
      return plan
        ? scheduleFailedBody(kind, {
            planId: plan.id,
            planName: plan.name,
            reason: delivery.detail ?? "unknown",
            planUrl: planUrl(plan.id),
          })
        : null;
    }
    const run = delivery.runId ? await repos.runs.get(orgId, delivery.runId) : undefined;
    return notificationBody(
      kind,
      run ? toRunView(run) : null,
      delivery.runId ? runUrl(delivery.runId) : deps.dashboardUrl,
    );
  }

  return {
    async channels(actor: Actor): Promise<NotificationChannelView[]> {
      authorize(actor, "settings.read");
      return (await repos.notifications.listChannels(actor.orgId)).map(toChannelView);
    },

    async createChannel(actor: Actor, input: unknown): Promise<NotificationChannelView> {
      authorize(actor, "settings.manage");
      const channel = parseOrThrow(CreateNotificationChannel, input, "notification channel");
      const row = await repos.notifications.insertChannel(actor.orgId, {
        id: crypto.randomUUID(),
        ...channel,
        events: [...new Set(channel.events)],
      });
      const view = toChannelView(row);
      // The host only: a Slack webhook's path is its secret.
      await deps.audit?.record(actor.orgId, actor.label, "notification-channel.created", row.id, {
        name: view.name,
        kind: view.kind,
        host: view.host,
        events: view.events,
      });
      return view;
    },

    async removeChannel(actor: Actor, id: string): Promise<void> {
      authorize(actor, "settings.manage");
      const channel = await repos.notifications.getChannel(actor.orgId, id);
      if (!channel || !(await repos.notifications.deleteChannel(actor.orgId, id)))
        throw new ThrongError("not_found", `No notification channel ${id} in this organisation`);
      await deps.audit?.record(actor.orgId, actor.label, "notification-channel.removed", id, {
        name: channel.name,
        kind: channel.kind,
      });
    },

    /** The settings page's test button: a real delivery through the workers, shown in the log like any other. */
    async test(actor: Actor, id: string): Promise<NotificationDeliveryView> {
      authorize(actor, "settings.manage");
      if (!(await repos.notifications.getChannel(actor.orgId, id)))
        throw new ThrongError("not_found", `No notification channel ${id} in this organisation`);
      const deliveryId = (await enqueue(actor.orgId, id, null, "test"))!;
      return toDeliveryView((await repos.notifications.getDelivery(actor.orgId, deliveryId))!);
    },

    async deliveries(actor: Actor): Promise<NotificationDeliveryView[]> {
      authorize(actor, "settings.read");
      return (await repos.notifications.listDeliveries(actor.orgId)).map(toDeliveryView);
    },

    /** Workers, when a run has closed: one delivery for each channel that wants this end (at most once per run). */
    async runEnded(orgId: string, runId: string): Promise<void> {
      const row = await repos.runs.get(orgId, runId);
      if (!row) return;
      const failed = runDidNotPass(toRunView(row));
      for (const channel of await repos.notifications.listChannels(orgId)) {
        if (channel.events.includes("finished") || (failed && channel.events.includes("failed")))
          await enqueue(orgId, channel.id, runId, "run-ended");
      }
    },

    /**
     * Workers, when a plan's schedule fired and no run started: every channel is told (for a channel that wants
     * only failures, this is one; for one that wants every end, so is this), with the plan and the reason.
     */
    async scheduleFailed(orgId: string, planId: string, reason: string): Promise<void> {
      for (const channel of await repos.notifications.listChannels(orgId))
        await enqueue(orgId, channel.id, null, "schedule-failed", { planId, detail: reason });
    },

    /**
     * Workers: one attempt. A 2xx marks it delivered; otherwise it throws so the queue retries, and the last attempt
     * (`final`) marks it failed with what the endpoint said.
     */
    async deliver(orgId: string, deliveryId: string, final: boolean): Promise<void> {
      const delivery = await repos.notifications.getDelivery(orgId, deliveryId);
      if (delivery?.status !== "pending" || !deps.post) return;
      const channel = await repos.notifications.getChannel(orgId, delivery.channelId);
      if (!channel) return; // deleted meanwhile: its deliveries went with it
      const body = await deliveryBody(orgId, NotificationKind.parse(channel.kind), delivery);
      if (!body) return; // its plan was deleted meanwhile (the delivery goes with it)
      let status: number | null = null;
      let error: string | null = null;
      try {
        status = (await deps.post(channel.url, body)).status;
        if (status < 200 || status > 299) error = `the endpoint answered HTTP ${status}`;
      } catch (cause) {
        error = `no answer from ${new URL(channel.url).host}: ${(cause as Error).message}`;
      }
      await repos.notifications.recordAttempt(orgId, deliveryId, {
        status: error ? (final ? "failed" : "pending") : "delivered",
        responseStatus: status,
        error,
      });
      if (error) throw new Error(error);
    },
  };
}
export type NotificationService = ReturnType<typeof createNotificationService>;
