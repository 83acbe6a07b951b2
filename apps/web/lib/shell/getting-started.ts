// The getting-started checklist on Home, each step ticked from the organisation's real data, in the order a new
// organisation takes them: an enrolment token, an agent online, a plan, a run. Pure; no React.
import type { AgentView } from "@throng/protocol/api";

export interface GettingStartedStep {
  id: "token" | "agent" | "plan" | "run";
  title: string;
  /** Where the step is done. */
  href: string;
  /** What to do there, or what the data shows once done. */
  detail: string;
  done: boolean;
}

export interface OrgFacts {
  agents: readonly Pick<AgentView, "status">[];
  plans: number;
  runs: number;
}

/**
 * The steps with their ticks. An enrolment token is shown once and never listed, so the first step counts as done
 * once any agent has enrolled with one (online or not).
 */
export function gettingStartedSteps({ agents, plans, runs }: OrgFacts): GettingStartedStep[] {
  const online = agents.filter((agent) => agent.status !== "offline").length;
  return [
    {
      id: "token",
      title: "Create an enrolment token",
      href: "/agents",
      detail:
        agents.length > 0
          ? `${agents.length} agent${agents.length === 1 ? "" : "s"} enrolled with one`
          : "On the Agents page: it makes the command that installs and enrols an agent.",
      done: agents.length > 0,
    },
    {
      id: "agent",
      title: "Get an agent online",
      href: "/agents",
      detail:
        online > 0
          ? `${online} online now`
          : agents.length > 0
            ? "Your agents are offline: start one with its command."
            : "Run the enrolment command on a machine that can reach your server.",
      done: online > 0,
    },
    {
      id: "plan",
      title: "Write your first plan",
      href: "/plans/new",
      detail:
        plans > 0
          ? `${plans} plan${plans === 1 ? "" : "s"} saved`
          : "Target, scenario, load and SLOs, in the form or as YAML.",
      done: plans > 0,
    },
    {
      id: "run",
      title: "Start your first run",
      href: "/plans",
      detail: runs > 0 ? "Done: your runs are listed below." : "Open a plan and press Start run.",
      done: runs > 0,
    },
  ];
}

/** True while any step is left: Home then leads with the checklist. */
export function gettingStartedOpen(steps: readonly GettingStartedStep[]): boolean {
  return steps.some((step) => !step.done);
}
