"use client";

import type { ErrorSampleView } from "@throng/protocol/error-samples";
import { bytesView, samplesByKind } from "../../lib/runs/error-samples";
import { formatDecimal, formatInteger } from "../../lib/shared/format";
import { DataTable } from "../ui/data-table";
import { keyedByContent } from "../../lib/shared/content-keys";

/** Rows shown per kind before "N more" (all of them are in the API's answer and the JSON export). */
const SHOWN_PER_KIND = 10;
const COLUMNS = [
  { label: "Since start", numeric: true },
  { label: "Client", numeric: true },
  "Agent",
  "Message",
  "Bytes (text, hex)",
] as const;

interface ErrorSamplesProps {
  samples: readonly ErrorSampleView[];
  /** Distinct samples kept per kind: a kind with this many may have had more. */
  perKind: number;
  /** An agent's host name; the public page has none and shows the id's start. */
  hostname: (agentId: string) => string;
  /** Errors counted over the run, by kind (its summary's errorsByKind), for "of N". */
  counted?: Readonly<Record<string, number>>;
}

/** What the errors said: each kind's first distinct messages, with when, which client and agent, and the bytes that caused it. */
export function ErrorSamples({ samples, perKind, hostname, counted }: ErrorSamplesProps) {
  const kinds = samplesByKind(samples);
  if (kinds.length === 0) return null;
  return (
    <section className="panel error-samples" aria-labelledby="error-samples-title" data-testid="error-samples">
      <h2 id="error-samples-title">What the errors said</h2>
      <p className="muted small">
        The first {perKind} distinct messages of each error kind (the same message with the same bytes counts once), as
        the agents saw them; secrets show as
        {" {{secrets.NAME}}"} or * bytes.
      </p>
      {kinds.map(({ kind, samples: kept }) => (
        <div key={kind} data-testid={`error-kind-${kind}`}>
          <h3>
            <code>{kind}</code>{" "}
            <span className="muted small">
              {formatInteger(kept.length)} distinct{kept.length >= perKind ? " (the first kept)" : ""}
              {counted?.[kind] !== undefined ? ` of ${formatInteger(counted[kind])} counted` : ""}
            </span>
          </h3>
          <SampleTable kind={kind} samples={kept.slice(0, SHOWN_PER_KIND)} hostname={hostname} />
          {kept.length > SHOWN_PER_KIND && (
            <details>
              <summary>{formatInteger(kept.length - SHOWN_PER_KIND)} more</summary>
              <SampleTable kind={kind} samples={kept.slice(SHOWN_PER_KIND)} hostname={hostname} />
            </details>
          )}
        </div>
      ))}
    </section>
  );
}

function SampleTable({
  kind,
  samples,
  hostname,
}: {
  kind: string;
  samples: readonly ErrorSampleView[];
  hostname: (agentId: string) => string;
}) {
  return (
    <DataTable caption={`Samples of ${kind} errors`} columns={COLUMNS} className="error-samples-table">
      {keyedByContent(samples, (s) => `${s.at}-${s.agentId}-${s.client ?? ""}-${s.message}`).map(
        ({ item: sample, key }) => (
          <tr key={key} data-testid="error-sample">
            <td className="num">
              {sample.sinceStartMs === null ? "—" : `${formatDecimal(sample.sinceStartMs / 1000, 3)} s`}
            </td>
            <td className="num">{sample.client === undefined ? "—" : formatInteger(sample.client)}</td>
            <td>{hostname(sample.agentId)}</td>
            <td className="error-sample-message">{sample.message}</td>
            <td>{sample.bytes ? <SampleBytes bytes={sample.bytes} /> : <span className="muted">—</span>}</td>
          </tr>
        ),
      )}
    </DataTable>
  );
}

function SampleBytes({ bytes }: { bytes: NonNullable<ErrorSampleView["bytes"]> }) {
  const view = bytesView(bytes);
  return (
    <div className="error-sample-bytes">
      <code data-testid="error-sample-text">{view.text}</code>
      <code className="muted" data-testid="error-sample-hex">
        {view.hex}
      </code>
      <span className="muted small">
        {formatInteger(bytes.length)} bytes
        {view.more > 0 ? `, the first ${formatInteger(bytes.hex.length / 2)} shown` : ""}
      </span>
    </div>
  );
}
