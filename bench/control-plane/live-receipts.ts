import type { LiveEnvelope } from "@throng/protocol/run";

/**
 * A browser on GET /api/runs/:id/live that notes when each agent's second first reaches it: the "agent-health"
 * message that follows the first point carrying that agent's snapshot (published right after it, in order).
 * Reopens the stream if the API cuts it.
 */
export function watchReceipts(url: string, headers: Record<string, string>) {
  const firstSeen = new Map<string, number>(); // `${agentId}:${t}` → receipt time
  const controller = new AbortController();
  let streamCuts = 0;
  let seqGaps = 0;
  let lastSeq: number | undefined;
  let finished = false;

  const onEnvelope = (envelope: LiveEnvelope, at: number) => {
    if (lastSeq !== undefined && envelope.seq !== lastSeq + 1) seqGaps += 1;
    lastSeq = envelope.seq;
    const message = envelope.message;
    if (message.type === "run" && ["finished", "failed", "aborted"].includes(message.run.status)) finished = true;
    if (message.type !== "agent-health") return;
    for (const health of message.agents) {
      const key = `${health.agentId}:${message.t}`;
      if (!firstSeen.has(key)) firstSeen.set(key, at);
    }
  };

  const loop = async () => {
    while (!controller.signal.aborted) {
      try {
        const response = await fetch(url, { headers, signal: controller.signal });
        const decoder = new TextDecoder();
        let text = "";
        lastSeq = undefined; // a reopened stream starts with the run at its current seq
        for await (const chunk of response.body!) {
          const at = Date.now();
          text += decoder.decode(chunk, { stream: true });
          for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
            const event = text.slice(0, end);
            text = text.slice(end + 2);
            const data = event.split("\n").find((line) => line.startsWith("data: "));
            // Not validated: this browser shares the api's two cores, and zod over every agent's health each second
            // would cost the api CPU it is measuring. The api's own tests validate the messages.
            if (data) onEnvelope(JSON.parse(data.slice(6)) as LiveEnvelope, at);
          }
        }
      } catch {
        // aborted by stop(), or the connection failed: reopen below unless stopped
      }
      if (!controller.signal.aborted) streamCuts += 1;
    }
  };
  const done = loop();

  return {
    firstSeen,
    get finished() {
      return finished;
    },
    async stop() {
      controller.abort();
      await done;
      return { streamCuts, seqGaps };
    },
  };
}
