/**
 * Reads a server-sent event stream (the run's live stream) to its end or its abort, handing over each event's data
 * (its `data:` lines joined, as a browser's EventSource does); events without data are skipped.
 */
export async function readEventData(body: ReadableStream<Uint8Array>, onData: (data: string) => void): Promise<void> {
  const decoder = new TextDecoder();
  let text = "";
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
      const event = text.slice(0, end);
      text = text.slice(end + 2);
      const data = event
        .split("\n")
        .filter((line) => line.startsWith("data: "))
        .map((line) => line.slice(6))
        .join("\n");
      if (data) onData(data);
    }
  }
}
