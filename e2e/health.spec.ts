// The smallest check that the e2e pipeline works: npm test started the API and told us where it is.
import { expect, test } from "./support/test";

test("the API started by npm test answers /health with status ok", async ({ request }) => {
  const apiUrl = process.env.E2E_API_URL;
  expect(apiUrl, "E2E_API_URL is set by npm test").toBeTruthy();
  const response = await request.get(`${apiUrl}/health`);
  expect(response.status()).toBe(200);
  expect(await response.json()).toMatchObject({ status: "ok" });
});
