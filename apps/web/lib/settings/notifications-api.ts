// Typed calls for the notification settings (routes in apps/api/src/routes/notifications.routes.ts).
import {
  NotificationChannelView,
  NotificationDeliveryView,
  type CreateNotificationChannel,
} from "@throng/protocol/notifications";
import { apiRequest, listOf } from "../shared/api-client";

const path = (...parts: string[]) => `/api/${parts.map(encodeURIComponent).join("/")}`;

export const notificationsApi = {
  listChannels: (signal?: AbortSignal) =>
    apiRequest("GET", "/api/notification-channels", listOf("channels", NotificationChannelView), undefined, signal),
  createChannel: (body: CreateNotificationChannel) =>
    apiRequest("POST", "/api/notification-channels", NotificationChannelView, body),
  removeChannel: (id: string) => apiRequest<void>("DELETE", path("notification-channels", id), null),
  /** A real delivery through the workers; its outcome shows in the delivery log. */
  testChannel: (id: string) => apiRequest("POST", path("notification-channels", id, "test"), NotificationDeliveryView),
  listDeliveries: (signal?: AbortSignal) =>
    apiRequest(
      "GET",
      "/api/notification-deliveries",
      listOf("deliveries", NotificationDeliveryView),
      undefined,
      signal,
    ),
};
