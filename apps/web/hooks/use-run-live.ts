"use client";

import { useCallback, useEffect, useRef, useState } from "react";
import type { RunView } from "@throng/protocol/run";
import type { SeriesPoint } from "@throng/protocol/snapshot";
import type { ServerPoint, ServerWatchSummary } from "@throng/protocol/server-watch";
import { api } from "../lib/shared/api";
import { errorMessage } from "../lib/shared/api-client";
import { missedMessages, parseLiveEvent } from "../lib/runs/live-event";
import { isTerminal } from "../lib/shared/run-timing";
import { addAgentHealth, mergePoints } from "../lib/charts/series";
import { mergeServerPoints } from "../lib/runs/server-watch";

export type StreamState = "connecting" | "live" | "reconnecting" | "closed";

export interface RunLive {
  run: RunView | null;
  points: SeriesPoint[];
  /**
   * Whether the stored series has been read once. The stream's first event is the run itself, which can arrive
   * seconds before the series on a busy machine: until then no points means "not read yet", not "none measured".
   */
  seriesRead: boolean;
  /** The server under test, when the plan watches it (PROTOCOL.md §11); empty otherwise. */
  server: ServerPoint[];
  /** Its summary so far, from the last fetch. */
  serverSummary: ServerWatchSummary | null;
  error: string | null;
  stream: StreamState;
  /** Takes a newer view of the run from elsewhere (e.g. the abort answer) before the stream brings it. */
  accept: (run: RunView) => void;
}

const REOPEN_MS = 3000;
const SUMMARY_POLL_MS = 1000;
const SUMMARY_POLL_TRIES = 30;

/**
 * A run and its per-second series, kept current: the live stream is opened first, then the
 * stored series is fetched and merged (and fetched again after every reconnect), so no second
 * is lost in between. Points received while a fetch is in flight win over the fetched ones.
 */
export function useRunLive(runId: string): RunLive {
  const [run, setRun] = useState<RunView | null>(null);
  const [points, setPoints] = useState<SeriesPoint[]>([]);
  const [seriesRead, setSeriesRead] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [stream, setStream] = useState<StreamState>("connecting");
  const liveDuringFetch = useRef<SeriesPoint[] | null>(null);
  const [server, setServer] = useState<ServerPoint[]>([]);
  const [serverSummary, setServerSummary] = useState<ServerWatchSummary | null>(null);

  useEffect(() => {
    const controller = new AbortController();
    const { signal } = controller;
    let source: EventSource | null = null;
    let reopenTimer: ReturnType<typeof setTimeout> | undefined;
    let summaryTries = 0;
    let lastSeq: number | null = null;

    const fail = (failure: unknown) => {
      if (!signal.aborted) setError(errorMessage(failure));
    };

    const refresh = async (): Promise<RunView | null> => {
      // Each refresh owns its buffer: two overlapping refreshes (a reconnect during the first fetch)
      // must not clear each other's, which used to crash a finished run's page.
      const live: SeriesPoint[] = [];
      liveDuringFetch.current = live;
      try {
        const [latest, series] = await Promise.all([api.getRun(runId, signal), api.getSeries(runId, signal)]);
        if (signal.aborted) return null;
        if (latest.spec.watch) {
          // Merged, never replaced: seconds that arrived live during this fetch stay.
          const watched = await api.getServerSeries(runId, signal);
          setServer((current) => mergeServerPoints(current, watched.points));
          setServerSummary(watched.summary);
        }
        setPoints((current) => mergePoints(mergePoints(current, series.points), live));
        setSeriesRead(true);
        setRun(latest);
        setError(null);
        return latest;
      } catch (failure) {
        fail(failure);
        return null;
      } finally {
        if (liveDuringFetch.current === live) liveDuringFetch.current = null;
      }
    };

    // A run's summary is computed as it ends; if the end arrived before it, ask again.
    const settle = async () => {
      const latest = await refresh();
      if (latest && !latest.summary && summaryTries++ < SUMMARY_POLL_TRIES && !signal.aborted) {
        reopenTimer = setTimeout(() => void settle(), SUMMARY_POLL_MS);
      }
    };

    const close = () => {
      source?.close();
      source = null;
      setStream("closed");
    };

    const onMessage = (event: MessageEvent<string>) => {
      const parsed = parseLiveEvent(event.data);
      if (!parsed) return;
      const { seq, message } = parsed;
      // A gap in the numbering means messages were lost (e.g. a Redis restart): refetch.
      if (missedMessages(lastSeq, seq)) void refresh();
      lastSeq = seq;
      if (message.type === "point") {
        liveDuringFetch.current?.push(message.point);
        setPoints((current) => mergePoints(current, [message.point]));
        return;
      }
      if (message.type === "agent-health") {
        setPoints((current) => addAgentHealth(current, message.t, message.agents));
        return;
      }
      if (message.type === "server") {
        setServer((current) => mergeServerPoints(current, [message.point]));
        return;
      }
      setRun(message.run);
      if (isTerminal(message.run.status)) {
        close();
        void settle();
      }
    };

    const open = () => {
      if (signal.aborted) return;
      setStream("connecting");
      let dropped = false;
      const es = new EventSource(api.liveUrl(runId));
      source = es;
      es.onmessage = onMessage;
      es.onopen = () => {
        setStream("live");
        lastSeq = null;
        // Catch up on whatever was published while the stream was down (or before it opened).
        void refresh().then((latest) => {
          if (latest && isTerminal(latest.status)) {
            close();
            void settle();
          }
        });
        dropped = false;
      };
      es.onerror = () => {
        if (es.readyState === EventSource.CLOSED) {
          // The browser gave up (e.g. an HTTP error); try again ourselves.
          source = null;
          setStream("reconnecting");
          reopenTimer = setTimeout(open, REOPEN_MS);
          // Meanwhile show what is stored, so a stream that cannot open still leaves the charts filled.
          void refresh();
        } else if (!dropped) {
          dropped = true;
          setStream("reconnecting");
        }
      };
    };

    // The stream first, then (on its open) the run and its stored series in one go: no second is missed in
    // between, and the series (a few megabytes for an hour) is fetched once. An ended run closes the stream again.
    open();

    return () => {
      controller.abort();
      clearTimeout(reopenTimer);
      source?.close();
    };
  }, [runId]);

  const accept = useCallback((next: RunView) => setRun(next), []);
  return { run, points, seriesRead, server, serverSummary, error, stream, accept };
}
