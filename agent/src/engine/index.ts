/** The load engine: one entry point shared by `connect` and standalone runs. */
export { runShard, type RunShardOptions, type ShardResult } from "./run-shard";
export { offsetClock, type Clock } from "./clock";
