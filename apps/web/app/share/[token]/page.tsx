import type { Metadata } from "next";
import { ShareReport } from "../../../components/reports/share-report";
import "../../(app)/runs/[id]/report/report.css";

// Outside the (app) group: no session, no navigation, no links into the dashboard.
export const metadata: Metadata = {
  title: "Shared report",
  robots: { index: false, follow: false },
  referrer: "no-referrer",
};

export default async function SharePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  return (
    <main className="share-page">
      <div className="share-banner no-print">
        <span className="brand">Throng</span>
        <span className="muted small">A read-only load-test report shared with you</span>
      </div>
      <ShareReport token={token} />
    </main>
  );
}
