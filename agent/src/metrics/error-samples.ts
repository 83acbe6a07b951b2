import {
  ERROR_MESSAGE_CHARS,
  ERROR_SAMPLE_BYTES,
  ERROR_SAMPLE_KINDS,
  ERROR_SAMPLES_PER_KIND,
  ERROR_SAMPLES_PER_SNAPSHOT,
  errorSampleKey,
  redactErrorSample,
  type ErrorSample,
} from "@throng/protocol/error-samples";

/**
 * Keeps the first distinct errors of each kind a shard sees (agent/PROTOCOL.md §5.2). It sits on the error path of
 * every client, so it is built to cost nothing once a kind is full: a full kind is one Map lookup and a compare, and
 * an error already kept is found by its message (a string the caller already has) and a number hashed from its
 * bytes, without building a string or copying a byte. Only a sample kept allocates, at most ERROR_SAMPLES_PER_KIND
 * times per kind.
 */
export interface ErrorSampler {
  /** An error of `kind`: kept when it is the first of its kind, message and bytes, and the kind is not full. */
  offer(kind: string, client: number | undefined, message: string | undefined, bytes: Uint8Array | undefined): void;
  /** The samples kept since the last take, at most ERROR_SAMPLES_PER_SNAPSHOT; the rest wait for the next. */
  take(): ErrorSample[] | undefined;
}

interface KindSamples {
  kept: number;
  /** Messages seen, each with the hashes of the bytes seen with it (0 for none). */
  seen: Map<string, number[]>;
}

/** FNV-1a over the bytes a sample would keep: distinct bytes are told apart without copying them. */
function hashBytes(bytes: Uint8Array | undefined): number {
  if (!bytes) return 0;
  let hash = 0x811c9dc5;
  const end = Math.min(bytes.length, ERROR_SAMPLE_BYTES);
  for (let i = 0; i < end; i += 1) hash = Math.imul(hash ^ bytes[i]!, 0x01000193);
  // The length is part of it (a reply cut at 256 bytes and a longer one); never 0, which means "no bytes".
  return Math.imul(hash ^ bytes.length, 0x01000193) >>> 0 || 1;
}

const hexOf = (bytes: Uint8Array) =>
  Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, ERROR_SAMPLE_BYTES)).toString("hex");

export function createErrorSampler(options: {
  /** Epoch ms in server time (the shard's clock); read only when a sample is kept. */
  now: () => number;
  /** The secrets written into this shard's plan: taken out of a sample before it leaves the engine. */
  secrets?: Readonly<Record<string, string>>;
  perKind?: number;
}): ErrorSampler {
  const perKind = options.perKind ?? ERROR_SAMPLES_PER_KIND;
  const secrets = options.secrets ?? {};
  const kinds = new Map<string, KindSamples>();
  let waiting: ErrorSample[] = [];

  return {
    offer(kind, client, message = kind, bytes) {
      let samples = kinds.get(kind);
      if (!samples) {
        if (kinds.size >= ERROR_SAMPLE_KINDS) return;
        samples = { kept: 0, seen: new Map() };
        kinds.set(kind, samples);
      }
      if (samples.kept >= perKind) return;
      const hash = hashBytes(bytes);
      const hashes = samples.seen.get(message);
      if (hashes?.includes(hash)) return;
      if (hashes) hashes.push(hash);
      else samples.seen.set(message, [hash]);
      samples.kept += 1;
      const sample: ErrorSample = {
        kind,
        message: message.slice(0, ERROR_MESSAGE_CHARS),
        at: Math.round(options.now()),
        ...(client !== undefined ? { client } : {}),
        ...(bytes ? { bytes: { length: bytes.length, hex: hexOf(bytes) } } : {}),
      };
      waiting.push(redactErrorSample(sample, secrets));
    },
    take() {
      if (waiting.length === 0) return undefined;
      const taken =
        waiting.length <= ERROR_SAMPLES_PER_SNAPSHOT ? waiting : waiting.slice(0, ERROR_SAMPLES_PER_SNAPSHOT);
      waiting = waiting.length <= ERROR_SAMPLES_PER_SNAPSHOT ? [] : waiting.slice(ERROR_SAMPLES_PER_SNAPSHOT);
      return taken;
    },
  };
}

/**
 * The agent's own bound over its engine processes' samples (each engine keeps its own distinct ones): the same error
 * from two engines goes once, each kind at most ERROR_SAMPLES_PER_KIND times per shard, and a snapshot carries at
 * most ERROR_SAMPLES_PER_SNAPSHOT (the rest follow in the next seconds' snapshots).
 */
export function createErrorSampleGate(perKind = ERROR_SAMPLES_PER_KIND) {
  const seen = new Set<string>();
  const kept = new Map<string, number>();
  let waiting: ErrorSample[] = [];
  return {
    pass(parts: readonly (ErrorSample[] | undefined)[]): ErrorSample[] | undefined {
      for (const part of parts) {
        for (const sample of part ?? []) {
          const count = kept.get(sample.kind) ?? 0;
          const key = errorSampleKey(sample);
          if (count >= perKind || seen.has(key) || (count === 0 && kept.size >= ERROR_SAMPLE_KINDS)) continue;
          seen.add(key);
          kept.set(sample.kind, count + 1);
          waiting.push(sample);
        }
      }
      if (waiting.length === 0) return undefined;
      const taken = waiting.slice(0, ERROR_SAMPLES_PER_SNAPSHOT);
      waiting = waiting.slice(ERROR_SAMPLES_PER_SNAPSHOT);
      return taken;
    },
  };
}
