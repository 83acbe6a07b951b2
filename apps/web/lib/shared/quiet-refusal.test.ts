import { expect, it } from "vitest";
import { quietStatus } from "./quiet-refusal";

it("answers a refusal the dashboard asked to hear quietly as 200 with its real status, and anything else as it is", () => {
  expect(quietStatus(422, true)).toEqual({ status: 200, refused: 422 });
  expect(quietStatus(401, true)).toEqual({ status: 200, refused: 401 });
  // A failure of the server stays an error the browser reports.
  expect(quietStatus(503, true)).toEqual({ status: 503, refused: null });
  expect(quietStatus(200, true)).toEqual({ status: 200, refused: null });
  // Any other client (curl, the CLI) gets the API's status untouched.
  expect(quietStatus(422, false)).toEqual({ status: 422, refused: null });
});
