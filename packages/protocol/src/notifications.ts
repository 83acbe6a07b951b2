import { z } from "zod";

/** Where a notification goes: any HTTP endpoint taking our JSON, or a Slack incoming webhook (its `text` format). */
export const NotificationKind = z.enum(["webhook", "slack"]);
export type NotificationKind = z.infer<typeof NotificationKind>;

/** When a channel is told: every run that ends, or only runs that did not pass (failed, aborted, failing verdict). */
export const NotificationEvent = z.enum(["finished", "failed"]);
export type NotificationEvent = z.infer<typeof NotificationEvent>;

/** POST /api/notification-channels body (settings page). */
export const CreateNotificationChannel = z.object({
  kind: NotificationKind,
  name: z.string().trim().min(1, "name the channel").max(100, "at most 100 characters"),
  url: z
    .string()
    .max(2000, "at most 2000 characters")
    .url("must be a full http(s) URL, e.g. https://hooks.slack.com/services/...")
    .refine((url) => /^https?:\/\//i.test(url), "must start with http:// or https://"),
  events: z.array(NotificationEvent).min(1, "choose when to notify: finished, failed or both").max(2),
});
export type CreateNotificationChannel = z.infer<typeof CreateNotificationChannel>;

/** GET /api/notification-channels items. The URL is shown only by its host: a Slack URL is itself a secret. */
export const NotificationChannelView = z.object({
  id: z.string().uuid(),
  kind: NotificationKind,
  name: z.string(),
  host: z.string(),
  events: z.array(NotificationEvent),
  createdAt: z.string(),
});
export type NotificationChannelView = z.infer<typeof NotificationChannelView>;

/** GET /api/notification-deliveries items: what was sent where, and how it went (retried by the workers). */
export const NotificationDeliveryView = z.object({
  id: z.string().uuid(),
  channelId: z.string().uuid(),
  channelName: z.string(),
  runId: z.string().uuid().nullable(),
  /** schedule-failed: the plan whose scheduled run did not start. */
  planId: z.string().uuid().nullable().optional(),
  /** schedule-failed: a scheduled run could not start (`runId` null; the text says which plan and why). */
  event: z.enum(["run-ended", "test", "schedule-failed"]),
  status: z.enum(["pending", "delivered", "failed"]),
  attempts: z.number().int(),
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type NotificationDeliveryView = z.infer<typeof NotificationDeliveryView>;

/** The JSON a webhook channel receives (POST, content-type application/json) when a run ends, a scheduled run cannot start, or on a test. */
export const RunNotification = z.object({
  event: z.enum(["run-ended", "test", "schedule-failed"]),
  run: z
    .object({
      id: z.string().uuid(),
      planName: z.string(),
      status: z.string(),
      /** The verdict's outcome when the run was judged (passed, failed, ...), else null. */
      outcome: z.string().nullable(),
      error: z.string().nullable(),
      url: z.string(),
    })
    .nullable(),
  /** schedule-failed: the plan whose scheduled run did not start, why, and its page. */
  schedule: z
    .object({ planId: z.string().uuid(), planName: z.string(), reason: z.string(), url: z.string() })
    .optional(),
  text: z.string(),
});
export type RunNotification = z.infer<typeof RunNotification>;
