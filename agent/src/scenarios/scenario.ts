/** What the engine drives: it starts clients on its ramp schedule and closes them all at the end. */
export interface ScenarioRunner {
  /** Starts client `index` (0-based within the shard). Never throws; failures are counted. */
  startClient(index: number): void;
  /** Stops every client and closes its connection; resolves once all have ended. */
  close(): Promise<void>;
}
