import { afterAll, beforeAll } from "vitest";
import { startTestApi, type TestApi, type TestUser } from "./test-api";

/**
 * The test file's in-process API with one user signed up as `userName`: started before its tests, closed after
 * them. `api()` and `user()` read them inside a test.
 */
export function signedUpApiPerFile(userName: string): { api: () => TestApi; user: () => TestUser } {
  let api: TestApi | undefined;
  let user: TestUser | undefined;
  beforeAll(async () => {
    api = await startTestApi();
    user = await api.signUp(userName);
  });
  afterAll(async () => {
    await api?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (!value) throw new Error("the test API is not up: call it inside a test, after beforeAll");
    return value;
  };
  return { api: () => started(api), user: () => started(user) };
}
