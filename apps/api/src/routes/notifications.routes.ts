import { z } from "zod";
import { IdParams } from "@throng/protocol/api";
import {
  CreateNotificationChannel,
  NotificationChannelView,
  NotificationDeliveryView,
} from "@throng/protocol/notifications";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoutes } from "../http/member-route";

/** Run notifications (settings): channels, their test button and the delivery log. Transport only. */
export async function notificationRoutes(app: ZodFastify, { resolveIdentity, notifications }: ApiDeps) {
  const member = memberRoutes(app, resolveIdentity);

  member.get("/api/notification-channels", "settings.read", {
    summary: "Where run notifications go (a webhook or Slack)",
    schema: { response: { 200: z.object({ channels: z.array(NotificationChannelView) }) } },
    handler: async ({ actor }) => ({ channels: await notifications.channels(actor) }),
  });

  member.post("/api/notification-channels", "settings.manage", {
    summary: "Add a notification channel",
    schema: {
      body: requestBody(CreateNotificationChannel, "notification channel"),
      response: { 201: NotificationChannelView },
    },
    answers: [201],
    handler: ({ actor, request }) => notifications.createChannel(actor, request.body),
  });

  member.delete("/api/notification-channels/:id", "settings.manage", {
    summary: "Remove a notification channel (its delivery log goes with it)",
    schema: { params: IdParams },
    answers: [204],
    handler: ({ actor, request }) => notifications.removeChannel(actor, request.params.id),
  });

  member.post("/api/notification-channels/:id/test", "settings.manage", {
    summary: "Send a test notification through the workers (202; see the delivery log)",
    schema: { params: IdParams, response: { 202: NotificationDeliveryView } },
    answers: [202],
    handler: ({ actor, request }) => notifications.test(actor, request.params.id),
  });

  member.get("/api/notification-deliveries", "settings.read", {
    summary: "The last 50 notifications sent, with their attempts and answers",
    schema: { response: { 200: z.object({ deliveries: z.array(NotificationDeliveryView) }) } },
    handler: async ({ actor }) => ({ deliveries: await notifications.deliveries(actor) }),
  });
}
