import type { SearchLevel } from "@throng/protocol/capacity-search";

/**
 * Carries an automatic search's levels to a running shard, whoever decides them (the server's `search-step`
 * messages, the standalone agent's own judging, or an engine process's parent). Levels pushed before the
 * shard listens are replayed to it, so a level that arrives early is never lost.
 */
export interface SearchFeed {
  push(level: SearchLevel): void;
  onLevel(listener: (level: SearchLevel) => void): void;
}

export function createSearchFeed(): SearchFeed {
  const levels: SearchLevel[] = [];
  const listeners: ((level: SearchLevel) => void)[] = [];
  return {
    push(level) {
      if (levels.some((l) => l.step === level.step)) return;
      levels.push(level);
      for (const listener of listeners) listener(level);
    },
    onLevel(listener) {
      listeners.push(listener);
      for (const level of levels) listener(level);
    },
  };
}
