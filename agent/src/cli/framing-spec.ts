import type { TcpFraming } from "@throng/protocol/plan";

export const FRAMING_SPEC_HELP =
  "len2|len4 (big-endian), len2le|len4le, add +h when the length counts the header; varint (protobuf-delimited: a varint length before each message); lf, crlf, or hex:<bytes>";

/** Parses the target's --framing shorthand into the plan's framing; undefined when it is not one. */
export function parseFramingSpec(spec: string): TcpFraming | undefined {
  const length = /^len([24])(le|be)?(\+h)?$/.exec(spec);
  if (length) {
    return {
      kind: "length-prefix",
      headerBytes: length[1] === "2" ? 2 : 4,
      byteOrder: length[2] === "le" ? "little" : "big",
      lengthIncludesHeader: length[3] !== undefined,
    };
  }
  if (spec === "varint") return { kind: "length-field", lengthFieldBytes: "varint", initialBytesToStrip: "header" };
  if (spec === "lf") return { kind: "delimiter", delimiter: "\n" };
  if (spec === "crlf") return { kind: "delimiter", delimiter: "\r\n" };
  const hex = /^hex:((?:[0-9a-fA-F]{2})+)$/.exec(spec);
  return hex ? { kind: "delimiter", delimiterHex: hex[1]! } : undefined;
}
