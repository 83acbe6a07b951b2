"use client";

import { usePendingAction } from "../../hooks/use-pending-action";
import { apiFile } from "../../lib/shared/api-client";
import { useChartZoom } from "../charts/chart-zoom";

/**
 * Downloads the report as a PDF the API printed in Chromium, named by the API (plan and day). While it prints the
 * button says so; a refusal (no Chromium on the server, too many exports) shows the API's own words beside it.
 * The PDF is the whole run's (report-html.ts says so on its first page): on a zoomed page the button says so too.
 */
export function PdfDownloadButton({ url, fallbackName }: { url: string; fallbackName: string }) {
  const { pending, failure, run } = usePendingAction();
  const zoomed = Boolean(useChartZoom()?.range);

  async function download() {
    const { blob, fileName } = await apiFile(url, fallbackName);
    const href = URL.createObjectURL(blob);
    const link = Object.assign(document.createElement("a"), { href, download: fileName });
    document.body.append(link);
    link.click();
    link.remove();
    // The click has handed the blob to the download; a tick later its URL can go.
    setTimeout(() => URL.revokeObjectURL(href), 0);
  }

  return (
    <>
      <button
        className="button"
        type="button"
        onClick={() => run(download)}
        disabled={pending}
        aria-busy={pending}
        data-testid="download-pdf"
        title={zoomed ? "The PDF covers the whole run, not only the zoomed seconds" : undefined}
      >
        {pending ? "Preparing PDF…" : zoomed ? "Download PDF (whole run)" : "Download PDF"}
      </button>
      {failure && (
        <span className="alert small" role="alert" data-testid="download-pdf-error">
          {failure}
        </span>
      )}
    </>
  );
}
