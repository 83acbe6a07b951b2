import type { NotificationDeliveryView } from "@throng/protocol/notifications";
import Link from "next/link";
import { formatDateTime } from "../../lib/shared/format";
import type { Tone } from "../../lib/shared/status";
import { DataTable } from "../ui/data-table";
import { StatusBadge } from "../ui/status-badge";
import { ErrorAlert } from "../ui/error-alert";

const TONES: Record<NotificationDeliveryView["status"], Tone> = { pending: "busy", delivered: "ok", failed: "bad" };

/** The last notifications sent: to which channel, about which run, and what the endpoint answered on each attempt. */
export function NotificationLog({
  deliveries,
  error,
}: {
  deliveries: NotificationDeliveryView[] | null;
  error: string | null;
}) {
  return (
    <section className="settings-section" aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">Delivery log</h2>
      <ErrorAlert error={error} />
      {deliveries && deliveries.length === 0 && (
        <p className="empty">Nothing sent yet. Send a test to a channel to see it here.</p>
      )}
      {deliveries && deliveries.length > 0 && (
        <DataTable
          caption="Notification deliveries"
          columns={["When", "Channel", "About", "Status", "Attempts", "Last answer"]}
          testId="delivery-log"
        >
          {deliveries.map((delivery) => (
            <tr key={delivery.id} data-testid="delivery-row" data-status={delivery.status}>
              <td>{formatDateTime(delivery.createdAt)}</td>
              <td>{delivery.channelName}</td>
              <td>
                {delivery.runId ? (
                  <Link href={`/runs/${delivery.runId}`}>run</Link>
                ) : delivery.planId ? (
                  <Link href={`/plans/${delivery.planId}`}>scheduled run not started</Link>
                ) : (
                  "test"
                )}
              </td>
              <td>
                <StatusBadge status={delivery.status} tone={TONES[delivery.status]} />
              </td>
              <td>{delivery.attempts}</td>
              <td className="small">
                {delivery.lastError ?? (delivery.responseStatus ? `HTTP ${delivery.responseStatus}` : "—")}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}
