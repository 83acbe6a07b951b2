import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

/**
 * `go` on PATH or in /usr/local/go, for the tests that build Go tools (kcp-go's test servers, helm); otherwise an
 * error that says which tests need it (`why`) and the oldest Go that builds them.
 */
export async function findGo(why: string, minVersion: string): Promise<string> {
  for (const candidate of ["go", "/usr/local/go/bin/go"]) {
    if (
      await run(candidate, ["version"]).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  throw new Error(
    `${why}: install Go ${minVersion}+ (https://go.dev/dl, or apt-get install golang-go with GOTOOLCHAIN=auto)`,
  );
}
