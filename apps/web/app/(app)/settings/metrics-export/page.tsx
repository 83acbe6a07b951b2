import type { Metadata } from "next";
import { MetricsExportSettings } from "../../../../components/settings/metrics-export-settings";

export const metadata: Metadata = { title: "Metrics export" };

export default function MetricsExportPage() {
  return <MetricsExportSettings />;
}
