/** What `throng` reads from the environment; only main.ts passes process.env in. */
export interface CliEnv {
  /** THRONG_SERVER: the API URL, e.g. http://localhost:4000 (--server wins). */
  server?: string;
  /** THRONG_TOKEN: an API token, thr_api_... (--token wins); kept out of shell history and CI logs. */
  token?: string;
  /** THRONG_DASHBOARD: the dashboard URL, for the run link (--dashboard wins). */
  dashboard?: string;
}

export function readCliEnv(env: Record<string, string | undefined>): CliEnv {
  const pick = (name: string) => (env[name]?.trim() ? env[name]!.trim() : undefined);
  const server = pick("THRONG_SERVER");
  const token = pick("THRONG_TOKEN");
  const dashboard = pick("THRONG_DASHBOARD");
  return { ...(server ? { server } : {}), ...(token ? { token } : {}), ...(dashboard ? { dashboard } : {}) };
}
