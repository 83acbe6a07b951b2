import { BroadcastRule } from "@throng/protocol/session";
import { describe, expect, it, vi } from "vitest";
import { compileBroadcastRule, type Broadcast } from "./broadcast-rule";

const read = (rule: BroadcastRule, message: Buffer | string, decode?: (data: Buffer) => unknown) => {
  const out: Broadcast = { sender: -1, seq: -1, sentAtUs: -1 };
  const result = compileBroadcastRule(BroadcastRule.parse(rule), decode)(Buffer.from(message), out);
  return { result, ...out };
};

describe("broadcast rule extractors", () => {
  it("json paths read the decoded reply, numbers and integer strings alike", () => {
    const rule = { sender: { json: "from.client" }, seq: { json: "seq" }, sentAtUs: { json: "t" } };
    expect(read(rule, '{"from":{"client":3},"seq":"17","t":1700000000000123}')).toEqual({
      result: "ok",
      sender: 3,
      seq: 17,
      sentAtUs: 1700000000000123,
    });
  });

  it("a regex reads numbered groups; sender, seq and send time from one expression execute it once", () => {
    const source = String.raw`"client":(\d+),"seq":(\d+),"sentAtUs":(\d+)`;
    const rule = {
      filter: { regex: String.raw`^42\["moved"` },
      sender: { regex: source },
      seq: { regex: source, group: 2 },
      sentAtUs: { regex: source, group: 3 },
    };
    const exec = vi.spyOn(RegExp.prototype, "exec");
    const got = read(rule, '42["moved",{"client":4,"seq":9,"sentAtUs":123456,"x":1}]');
    const contexts = exec.mock.contexts.map((context) => (context as RegExp).source);
    exec.mockRestore();
    const runs = (pattern: string) => contexts.filter((ran) => ran === new RegExp(pattern).source).length;
    expect(runs(source)).toBe(1);
    expect(runs(String.raw`^42\["moved"`)).toBe(1);
    expect(got).toEqual({ result: "ok", sender: 4, seq: 9, sentAtUs: 123456 });
  });

  it("bytes read unsigned integers big- and little-endian, up to 8 bytes", () => {
    const message = Buffer.from("0102" + "00000007" + "2a000000" + "0000060504030201", "hex");
    const rule = {
      sender: { bytes: { offset: 2, length: 4 } },
      seq: { bytes: { offset: 6, length: 4, byteOrder: "little" as const } },
      sentAtUs: { bytes: { offset: 10, length: 8 } },
    };
    expect(read(rule, message)).toEqual({ result: "ok", sender: 7, seq: 42, sentAtUs: 0x060504030201 });
    expect(
      read(
        { sender: { bytes: { offset: 0, length: 2, byteOrder: "little" } }, seq: { bytes: { offset: 0, length: 1 } } },
        message,
      ),
    ).toMatchObject({ sender: 0x0201, seq: 1 });
  });

  it("bytes and regex rules never decode the message", () => {
    const decode = vi.fn(() => ({}));
    const rule = { filter: { prefixHex: "01" }, sender: { bytes: { offset: 1, length: 1 } }, seq: { regex: "(\\d)" } };
    expect(read(rule, Buffer.from([1, 5, 0x37]), decode)).toMatchObject({ result: "ok", sender: 5, seq: 7 });
    expect(decode).not.toHaveBeenCalled();
  });

  it("a json filter and json extractors share one decode per message", () => {
    const decode = vi.fn((data: Buffer) => JSON.parse(data.toString()) as unknown);
    const rule = {
      filter: { json: { field: "type", equals: "moved" } },
      sender: { json: "client" },
      seq: { json: "seq" },
      sentAtUs: { json: "t" },
    };
    expect(read(rule, '{"type":"moved","client":1,"seq":2,"t":3}', decode)).toMatchObject({
      result: "ok",
      sender: 1,
      seq: 2,
      sentAtUs: 3,
    });
    expect(decode).toHaveBeenCalledTimes(1);
  });

  it("a message the filter rejects is not a broadcast and its fields are not read", () => {
    const decode = vi.fn(() => ({ client: 1, seq: 2 }));
    const rule = { filter: { prefixHex: "2a" }, sender: { json: "client" }, seq: { json: "seq" } };
    expect(read(rule, "{}", decode).result).toBe("not-broadcast");
    expect(decode).not.toHaveBeenCalled();
  });

  it("a message that lacks a field: incomplete when the filter took it for a broadcast, else not a broadcast", () => {
    const fields = { sender: { json: "client" }, seq: { json: "seq" }, sentAtUs: { json: "t" } };
    expect(
      read({ filter: { json: { field: "type", equals: "moved" } }, ...fields }, '{"type":"moved","client":1,"seq":2}')
        .result,
    ).toBe("incomplete");
    expect(read(fields, '{"type":"welcome"}').result).toBe("not-broadcast");
    expect(read(fields, "not json").result).toBe("not-broadcast");
    expect(
      read({ sender: { bytes: { offset: 4, length: 4 } }, seq: { bytes: { offset: 0, length: 1 } } }, Buffer.alloc(6))
        .result,
    ).toBe("not-broadcast");
    expect(read({ sender: { regex: "c=(\\d+)" }, seq: { regex: "s=(\\d+)" } }, "c=1 s=").result).toBe("not-broadcast");
  });

  it("with no sentAtUs extractor the send time is left to the agent's own record (NaN)", () => {
    expect(read({ sender: { json: "c" }, seq: { json: "s" } }, '{"c":1,"s":2}').sentAtUs).toBeNaN();
  });
});

describe("broadcast rule schema", () => {
  it("refuses a bytes extractor past 8 bytes and names the accepted sources", () => {
    expect(BroadcastRule.safeParse({ sender: { bytes: { offset: 0, length: 9 } }, seq: { json: "s" } }).success).toBe(
      false,
    );
    const unknown = BroadcastRule.safeParse({ sender: { xpath: "a" }, seq: { json: "s" } });
    expect(unknown.error?.issues[0]?.message).toContain(
      "{ json: path }, { regex, group? } or { bytes: { offset, length, byteOrder? } }",
    );
  });
});
