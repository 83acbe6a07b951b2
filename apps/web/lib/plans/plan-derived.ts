import { formatInteger } from "../shared/format";
import type { DraftObject } from "./schema-form";
import type { PlanDraft } from "./plan-draft";
import { expectedMessagesPerSec } from "./plan-draft";
import { sentMessageBytes } from "./plan-summary";

export interface PlanDerived {
  /** Messages per second sent at full load, where the scenario fixes the rate. */
  messagesPerSec: number | null;
  /** Payload bits per second sent at full load (rate × the size of the message the scenario sends), before protocol overhead. */
  sentBitsPerSec: number | null;
  /** Clients (so connections) each agent holds when the load is split over `agents` agents. */
  connectionsPerAgent: number | null;
}

/** The figures a load tester works out by hand while typing a plan. */
export function derivePlanFigures(draft: PlanDraft, onlineAgents: number | null): PlanDerived {
  const messagesPerSec = expectedMessagesPerSec(draft);
  const scenario = draft.scenario as DraftObject | undefined;
  const bytes = scenario ? sentMessageBytes(scenario) : null;
  const clients = Number((draft.load as DraftObject | undefined)?.clients);
  const wanted = Number((draft.agents as DraftObject | undefined)?.count);
  const agents = onlineAgents === null ? null : Math.min(onlineAgents, wanted > 0 ? wanted : onlineAgents);
  return {
    messagesPerSec,
    sentBitsPerSec: messagesPerSec !== null && bytes !== null ? messagesPerSec * bytes * 8 : null,
    connectionsPerAgent: clients > 0 && agents ? Math.ceil(clients / agents) : null,
  };
}

/**
 * The line under Load about connections per agent: the figure, or why there is none: no agent online, the
 * agents not known yet, or Clients not a number (while a form error says so, the agents are still online).
 */
export function connectionsPerAgentText(
  derived: Pick<PlanDerived, "connectionsPerAgent">,
  onlineAgents: number | null,
): string {
  if (onlineAgents === null) return "Connections per agent show once the online agents are known.";
  if (onlineAgents === 0) return "No agent is online: connections per agent show once one is.";
  const agents = `${onlineAgents} online agent${onlineAgents === 1 ? "" : "s"}`;
  if (derived.connectionsPerAgent === null)
    return `Enter the number of clients to see connections per agent over ${agents}.`;
  return `≈ ${formatInteger(derived.connectionsPerAgent)} connections per agent over ${agents}`;
}
