import { z } from "zod";
import { IdParams } from "@throng/protocol/api";
import {
  CreateNotificationChannel,
  NotificationChannelView,
  NotificationDeliveryView,
} from "@throng/protocol/notifications";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";
import { memberRoute, memberRoutes } from "../http/member-route";

/** Run notifications (settings): channels, their test button and the delivery log. Transport only. */
export async function notificationRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, notifications } = deps;
  const member = memberRoutes(app, resolveIdentity);

  member.get(
    "/api/notification-channels",
    memberRoute("settings.read", "Where run notifications go (a webhook or Slack)", {
      response: { 200: z.object({ channels: z.array(NotificationChannelView) }) },
    }),
    async ({ actor }) => ({ channels: await notifications.channels(actor) }),
  );

  member.post(
    "/api/notification-channels",
    memberRoute(
      "settings.manage",
      "Add a notification channel",
      {
        body: requestBody(CreateNotificationChannel, "notification channel"),
        response: { 201: NotificationChannelView },
      },
      { answers: [201] },
    ),
    ({ actor, request }) => notifications.createChannel(actor, request.body),
  );

  member.delete(
    "/api/notification-channels/:id",
    memberRoute(
      "settings.manage",
      "Remove a notification channel (its delivery log goes with it)",
      { params: IdParams },
      { answers: [204] },
    ),
    ({ actor, request }) => notifications.removeChannel(actor, request.params.id),
  );

  member.post(
    "/api/notification-channels/:id/test",
    memberRoute(
      "settings.manage",
      "Send a test notification through the workers (202; see the delivery log)",
      { params: IdParams, response: { 202: NotificationDeliveryView } },
      { answers: [202] },
    ),
    ({ actor, request }) => notifications.test(actor, request.params.id),
  );

  member.get(
    "/api/notification-deliveries",
    memberRoute("settings.read", "The last 50 notifications sent, with their attempts and answers", {
      response: { 200: z.object({ deliveries: z.array(NotificationDeliveryView) }) },
    }),
    async ({ actor }) => ({ deliveries: await notifications.deliveries(actor) }),
  );
}
