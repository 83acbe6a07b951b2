import { ERROR_SAMPLES_PER_KIND, type ErrorSample, type RunErrorSamples } from "@throng/protocol/error-samples";
import type { Repos } from "@throng/db/repos";

/**
 * Ingest: the samples a stored snapshot carried (agent/PROTOCOL.md §5.2), kept while their kind has fewer than
 * ERROR_SAMPLES_PER_KIND for the run; the same error sent again (a re-sent snapshot, another agent) is kept once.
 */
export async function keepErrorSamples(
  repos: Pick<Repos, "errorSamples">,
  orgId: string,
  runId: string,
  agentId: string,
  samples: readonly ErrorSample[] | undefined,
): Promise<void> {
  if (samples?.length) await repos.errorSamples.add(orgId, runId, agentId, samples, ERROR_SAMPLES_PER_KIND);
}

/** The run's kept samples in the order they happened, each with its time since the run started; the API's, the report's and the exports'. */
export async function errorSamplesOf(
  repos: Pick<Repos, "errorSamples">,
  orgId: string,
  runId: string,
  startedAt: string | null,
): Promise<RunErrorSamples> {
  const start = startedAt === null ? null : Date.parse(startedAt);
  const rows = await repos.errorSamples.listRun(orgId, runId);
  return {
    runId,
    perKind: ERROR_SAMPLES_PER_KIND,
    samples: rows.map((row) => ({ ...row, sinceStartMs: start === null ? null : row.at - start })),
  };
}
