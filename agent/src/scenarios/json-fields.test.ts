import { describe, expect, it } from "vitest";
import { mulberry32 } from "../engine/seeded-random";
import { compileJsonFieldScan } from "./json-fields";

const KEYS = ["type", "client", "seq", "t"];

/** What the broadcast rule reads without the scan: JSON.parse, then each key of the object (undefined when it is none). */
function parsed(text: string): unknown[] | "unreadable" {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return "unreadable";
  }
  return KEYS.map((key) =>
    value !== null && typeof value === "object" ? (value as Record<string, unknown>)[key] : undefined,
  );
}

function scanned(text: string): unknown[] | undefined {
  const out = new Array<unknown>(KEYS.length).fill(undefined);
  return compileJsonFieldScan(KEYS)(Buffer.from(text), out) ? out : undefined;
}

/** A flat object of the kind a room server relays, with random values, spacing and key order. */
function message(random: () => number): string {
  const pick = <T>(items: T[]) => items[Math.floor(random() * items.length)]!;
  const space = () => pick(["", "", " ", "\n ", "\t"]);
  const value = () =>
    pick([
      () => String(Math.floor(random() * 1e6)),
      () => String(Math.floor(random() * 1e17)),
      () => String(-random() * 1000),
      () => (random() * 10).toExponential(3),
      () => JSON.stringify(pick(["move", "joined", "mové", 'a"b', "x\\y", "\u0001", ""])),
      () => pick(["true", "false", "null", "0", "-0"]),
    ])();
  const members = Array.from(
    { length: Math.floor(random() * 7) },
    () =>
      `${space()}${JSON.stringify(pick([...KEYS, "room", "x", "pad", "tt"]))}${space()}:${space()}${value()}${space()}`,
  );
  return `${space()}{${members.join(",")}}${space()}`;
}

/** The same text broken in one place: a byte dropped, doubled or replaced. */
function mutated(text: string, random: () => number): string {
  const at = Math.floor(random() * text.length);
  const byte = '{}[]":,\\ 0-e.tn'[Math.floor(random() * 15)]!;
  const kind = random();
  if (kind < 0.33) return text.slice(0, at) + text.slice(at + 1);
  if (kind < 0.66) return text.slice(0, at) + byte + text.slice(at);
  return text.slice(0, at) + byte + text.slice(at + 1);
}

describe("top-level JSON fields read off the bytes", () => {
  it("reads a relayed update's fields as JSON.parse does", () => {
    const text =
      '{"type":"move","room":3,"client":61,"seq":1204,"t":1795000000123456,"x":-99.5004165278,"y":9.98334166}';
    expect(scanned(text)).toEqual(["move", 61, 1204, 1795000000123456]);
  });

  it("leaves to JSON.parse what it cannot read with certainty: nested values, escapes in wanted strings or keys, other top-level values", () => {
    for (const text of [
      '{"type":"move","pos":{"x":1}}',
      '{"type":"mo\\"ve"}',
      '{"ty\\u0070e":"move"}',
      "[1,2]",
      '"move"',
      "",
      "{",
      '{"type":"move",}',
      '{"seq":01}',
    ]) {
      expect(scanned(text), text).toBeUndefined();
    }
  });

  it("agrees with JSON.parse on every message it reads, over 20,000 generated and broken messages", () => {
    const random = mulberry32(13);
    let read = 0;
    for (let i = 0; i < 20_000; i += 1) {
      const text = i % 2 ? mutated(message(random), random) : message(random);
      const fields = scanned(text);
      if (fields === undefined) continue;
      read += 1;
      expect(fields, text).toEqual(parsed(text));
    }
    // Most well-formed messages are read by the scan itself.
    expect(read).toBeGreaterThan(8_000);
  });
});
