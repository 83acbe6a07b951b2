import { DESCRIPTOR_RESERVE, descriptorCeiling, openFileCount, openFileLimit } from "../metrics/health";
import { failedConnection, type Transport } from "../transports/transport";

/** Says whether this process may open one more connection without eating into the engine's own reserve. */
export interface DescriptorBudget {
  /** The most descriptors the process may hold with its connections: descriptorCeiling, from what it held before them. */
  readonly max: number;
  /** True, and counts the connection, when it fits; false when the process is at its budget. */
  allows(): boolean;
}

/**
 * A process's descriptor budget, read from what it really has open (every socket, a script's, an http step's),
 * not from a count kept per connection: no per-client state and nothing on the message path. Between readings each
 * connection allowed counts as one more (closes are not seen, so the estimate only errs high); the real count is
 * read again only when the estimate reaches the budget, so a run far from its limit reads it once.
 * Undefined where the limit or the count cannot be read (not Linux).
 */
export function descriptorBudget(
  limit = openFileLimit(),
  count: () => number | undefined = openFileCount,
): DescriptorBudget | undefined {
  const first = count();
  if (limit === undefined || !Number.isFinite(limit) || first === undefined) return undefined;
  // Made before the shard's first connection: what is open now is the engine's own.
  const max = descriptorCeiling(limit, first);
  let known = first;
  let since = 0;
  return {
    max,
    allows() {
      if (known + since < max) {
        since += 1;
        return true;
      }
      known = count() ?? known;
      since = 0;
      if (known >= max) return false;
      since = 1;
      return true;
    },
  };
}

/** The error a connection past the budget fails with: EMFILE, so it counts with cause "limit" like the kernel's own. */
export function budgetError(budget: DescriptorBudget): Error {
  return Object.assign(
    new Error(
      `EMFILE: no descriptor left for another connection (${budget.max} open: the open-file limit less ${DESCRIPTOR_RESERVE} kept for the engine itself)`,
    ),
    { code: "EMFILE" },
  );
}

/**
 * `transport`, refusing a connection (cause "limit") once the process is at its budget instead of opening it: an
 * engine that used its last descriptor for a connection died the next time it needed one for itself.
 */
export function guardDescriptors(transport: Transport, budget: DescriptorBudget | undefined): Transport {
  if (!budget) return transport;
  return {
    open: (events, options) =>
      budget.allows() ? transport.open(events, options) : failedConnection(events, budgetError(budget)),
  };
}
