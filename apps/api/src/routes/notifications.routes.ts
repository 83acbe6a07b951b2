import { z } from "zod";
import { IdParams } from "@throng/protocol/api";
import {
  CreateNotificationChannel,
  NotificationChannelView,
  NotificationDeliveryView,
} from "@throng/protocol/notifications";
import type { ApiDeps } from "../services";
import { requestBody, type ZodFastify } from "../http/route-schema";

/** Run notifications (settings): channels, their test button and the delivery log. Transport only. */
export async function notificationRoutes(app: ZodFastify, deps: ApiDeps) {
  const { resolveIdentity, notifications } = deps;

  app.get(
    "/api/notification-channels",
    {
      schema: { response: { 200: z.object({ channels: z.array(NotificationChannelView) }) } },
      config: {
        doc: {
          summary: "Where run notifications go (a webhook or Slack)",
          access: "user",
          permission: "settings.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { channels: await notifications.channels(actor) };
    },
  );

  app.post(
    "/api/notification-channels",
    {
      schema: {
        body: requestBody(CreateNotificationChannel, "notification channel"),
        response: { 201: NotificationChannelView },
      },
      config: {
        doc: {
          summary: "Add a notification channel",
          access: "user",
          answers: [201],
          permission: "settings.manage",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(201).send(await notifications.createChannel(actor, request.body));
    },
  );

  app.delete(
    "/api/notification-channels/:id",
    {
      schema: { params: IdParams },
      config: {
        doc: {
          summary: "Remove a notification channel (its delivery log goes with it)",
          access: "user",
          answers: [204],
          permission: "settings.manage",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      await notifications.removeChannel(actor, request.params.id);
      return reply.status(204).send();
    },
  );

  app.post(
    "/api/notification-channels/:id/test",
    {
      schema: { params: IdParams, response: { 202: NotificationDeliveryView } },
      config: {
        doc: {
          summary: "Send a test notification through the workers (202; see the delivery log)",
          access: "user",
          answers: [202],
          permission: "settings.manage",
        },
      },
    },
    async (request, reply) => {
      const { actor } = await resolveIdentity(request);
      return reply.status(202).send(await notifications.test(actor, request.params.id));
    },
  );

  app.get(
    "/api/notification-deliveries",
    {
      schema: { response: { 200: z.object({ deliveries: z.array(NotificationDeliveryView) }) } },
      config: {
        doc: {
          summary: "The last 50 notifications sent, with their attempts and answers",
          access: "user",
          permission: "settings.read",
        },
      },
    },
    async (request) => {
      const { actor } = await resolveIdentity(request);
      return { deliveries: await notifications.deliveries(actor) };
    },
  );
}
