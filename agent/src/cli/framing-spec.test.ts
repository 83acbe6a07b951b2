import { describe, expect, it } from "vitest";
import { parseFramingSpec } from "./framing-spec";

describe("target --framing shorthand", () => {
  it("reads length prefixes with byte order and header counting", () => {
    expect(parseFramingSpec("len2")).toEqual({
      kind: "length-prefix",
      headerBytes: 2,
      byteOrder: "big",
      lengthIncludesHeader: false,
    });
    expect(parseFramingSpec("len4le+h")).toEqual({
      kind: "length-prefix",
      headerBytes: 4,
      byteOrder: "little",
      lengthIncludesHeader: true,
    });
  });
  it("reads varint as protobuf-delimited framing: a varint length the target strips and writes", () => {
    expect(parseFramingSpec("varint")).toEqual({
      kind: "length-field",
      lengthFieldBytes: "varint",
      initialBytesToStrip: "header",
    });
  });
  it("reads delimiters and rejects anything else", () => {
    expect(parseFramingSpec("crlf")).toEqual({ kind: "delimiter", delimiter: "\r\n" });
    expect(parseFramingSpec("hex:00")).toEqual({ kind: "delimiter", delimiterHex: "00" });
    expect(parseFramingSpec("len3")).toBeUndefined();
  });
});
