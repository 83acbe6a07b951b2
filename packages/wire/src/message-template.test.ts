import { describe, expect, it } from "vitest";
import { compileTemplate, createSeqReader } from "./message-template";

const fields = { seq: 42, sentAtUs: 1_700_000_000_000_123, client: 7, room: 3, x: 1.234, y: -5 };

describe("message templates", () => {
  it("fills text placeholders and pads {{pad}} to sizeBytes", () => {
    const build = compileTemplate({ body: "P {{seq}} c{{client}} r{{room}} {{x}},{{y}} {{pad}}|", sizeBytes: 40 });
    const message = build(fields).toString();
    expect(message).toMatch(/^P 42 c7 r3 1\.23,-5 x+\|$/);
    expect(message.length).toBe(40);
  });

  it("keeps JSON valid: without {{pad}} it pads with trailing spaces", () => {
    const build = compileTemplate({ format: "json", body: '{"seq":{{seq}},"at":{{sentAtUs}}}', sizeBytes: 64 });
    const message = build(fields);
    expect(message.length).toBe(64);
    expect(JSON.parse(message.toString())).toEqual({ seq: 42, at: 1_700_000_000_000_123 });
  });

  it("writes hex bodies with big-endian binary numbers and zero padding", () => {
    const build = compileTemplate({ format: "hex", body: "ca fe {{seq}} {{sentAtUs}} {{pad}}", sizeBytes: 20 });
    const message = build({ ...fields, sentAtUs: 258 });
    expect(message.length).toBe(20);
    expect(message.subarray(0, 2).toString("hex")).toBe("cafe");
    expect(message.readUInt32BE(2)).toBe(42);
    expect(message.readBigUInt64BE(6)).toBe(258n);
    expect([...message.subarray(14)]).toEqual([0, 0, 0, 0, 0, 0]);
    expect(() => compileTemplate({ format: "hex", body: "zz{{seq}}" })).toThrow(/not hex/);
  });
});

describe("response matching", () => {
  it("reads the seq from a JSON field (dotted path), a regex group or a byte offset", () => {
    expect(createSeqReader({ by: "json-field", field: "data.seq" })!(Buffer.from('{"data":{"seq":9}}'))).toBe(9);
    expect(createSeqReader({ by: "json-field", field: "seq" })!(Buffer.from("not json"))).toBeUndefined();
    expect(createSeqReader({ by: "regex", pattern: "PONG (\\d+)" })!(Buffer.from("PONG 77 ok"))).toBe(77);
    const binary = Buffer.from([0xff, 0x01, 0x02, 0, 0]);
    expect(createSeqReader({ by: "byte-offset", offset: 1, bytes: 2 })!(binary)).toBe(0x0102);
    expect(createSeqReader({ by: "byte-offset", offset: 1, bytes: 2, byteOrder: "little" })!(binary)).toBe(0x0201);
    expect(createSeqReader({ by: "byte-offset", offset: 4 })!(binary)).toBeUndefined();
    expect(createSeqReader({ by: "order" })).toBeUndefined();
  });
});
