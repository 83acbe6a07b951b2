import { expect, it } from "vitest";
import { personName } from "./people";

it("names a member by their name, and anything else as the API recorded it, never by an email's local part", () => {
  expect(personName("ux1795738370744@example.com", "Dash Tester")).toBe("Dash Tester");
  expect(personName("token nightly", null)).toBe("token nightly");
  expect(personName("gone@example.com", undefined)).toBe("gone@example.com");
  expect(personName("ann@example.com", "  ")).toBe("ann@example.com");
});
