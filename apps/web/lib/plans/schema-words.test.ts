import { expect, it } from "vitest";
import { PlanSpec } from "@throng/protocol/plan";
import { schemaWords } from "./schema-words";

/** zod's complaints and the form's words for them; the schema's own words stay as they are. */
const WORDED: readonly [message: string, words: string][] = [
  ["Too big: expected array to have <=20 items", "at most 20 items"],
  ["Too small: expected array to have >=1 items", "give at least one"],
  ["Too big: expected string to have <=120 characters", "at most 120 characters"],
  ["Too small: expected string to have >=1 characters", "fill this in"],
  ["Too big: expected number to be <=600000", "must be at most 600000"],
  ["Too small: expected number to be >=1", "must be at least 1"],
  ["Invalid input: expected boolean, received string", "must be yes or no (true or false)"],
  ['Unrecognized key: "clinets"', "clinets: not a field here (check its spelling and where it sits)"],
  ["must be at least 10 ms", "must be at least 10 ms"],
];

it("says the schema's own complaints in the form's words, never zod's ('Too big: expected array to have <=20 items')", () => {
  for (const [message, words] of WORDED) expect(schemaWords(message), message).toBe(words);
});

it("leaves no zod wording in what a plan with too many SLOs and bad fields is told", () => {
  const plan = {
    name: "x".repeat(200),
    target: { protocol: "websocket", url: "ws://127.0.0.1:7070/ws", subprotocols: Array(20).fill("a") },
    scenario: { kind: "ping-pong", intervalMs: 1000, messageBytes: 64 },
    load: { clients: 5, durationSec: 5 },
    slos: Array.from({ length: 21 }, () => ({ metric: "rtt-p99-ms", below: 50 })),
  };
  const issues = PlanSpec.safeParse(plan).error!.issues.map((issue) => schemaWords(issue.message));
  expect(issues).toEqual(expect.arrayContaining(["at most 20 items", "at most 16 items"]));
  for (const words of issues) expect(words).not.toMatch(/Too (big|small)|expected \w+ to|Invalid input/);
});
