// The run's error samples as the run page, the report and its PDF show them: one table per kind, in the order the
// kinds first happened, each sample's bytes as text (escapes for what is not printable) and as hex.
import type { ErrorSampleBytes, ErrorSampleView } from "@throng/protocol/error-samples";
import { hexToText } from "../shared/hex-text";

export interface ErrorKindSamples {
  kind: string;
  samples: ErrorSampleView[];
}

/** Samples grouped by kind; kinds in the order of their first sample, each kind's samples in time order. */
export function samplesByKind(samples: readonly ErrorSampleView[]): ErrorKindSamples[] {
  const kinds = new Map<string, ErrorSampleView[]>();
  for (const sample of [...samples].sort((a, b) => a.at - b.at)) {
    const list = kinds.get(sample.kind);
    if (list) list.push(sample);
    else kinds.set(sample.kind, [sample]);
  }
  return [...kinds].map(([kind, list]) => ({ kind, samples: list }));
}

/** The bytes as text and as hex in pairs ("2d 45 52 52"), and how many more the message had than the sample kept. */
export function bytesView(bytes: ErrorSampleBytes): { text: string; hex: string; more: number } {
  return {
    text: hexToText(bytes.hex) ?? "",
    hex: bytes.hex.replace(/(..)(?!$)/g, "$1 "),
    more: Math.max(0, bytes.length - bytes.hex.length / 2),
  };
}
