/**
 * The server the variable `envVar` points at, once `problem` finds nothing wrong with it (it answers undefined);
 * undefined when the variable is unset, so the caller runs a local server. A server there that does not answer stops
 * the start with what `problem` found and what to do.
 */
export async function externalServer(
  envVar: string,
  problem: (url: string) => Promise<string | undefined>,
): Promise<string | undefined> {
  const external = process.env[envVar];
  if (!external) return undefined;
  const found = await problem(external);
  if (found) throw new Error(`${envVar} is set but ${found}. Fix ${envVar} or unset it to run a local one.`);
  return external;
}
