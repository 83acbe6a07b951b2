// Hex bytes (a reply rule's prefixHex, a framing's delimiterHex) shown and typed as text with escapes: "+PONG",
// "\r\n", "\x00". The schema keeps hex; the form offers the text beside it so nobody converts by hand.

const ESCAPES: Record<string, number> = { r: 0x0d, n: 0x0a, t: 0x09, "0": 0x00, "\\": 0x5c };
const NAMED: Record<number, string> = { 13: "\\r", 10: "\\n", 9: "\\t", 92: "\\\\" };

/** Text with \r \n \t \0 \\ and \xNN escapes as lowercase hex bytes (other characters as UTF-8). */
export function textToHex(text: string): string {
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    const next = text[index + 1];
    if (char === "\\" && next !== undefined && next in ESCAPES) {
      bytes.push(ESCAPES[next]!);
      index++;
    } else if (char === "\\" && next === "x" && /^[0-9a-fA-F]{2}$/.test(text.slice(index + 2, index + 4))) {
      bytes.push(parseInt(text.slice(index + 2, index + 4), 16));
      index += 3;
    } else {
      const code = text.codePointAt(index)!;
      if (code > 0xffff) index++;
      bytes.push(...encoder.encode(String.fromCodePoint(code)));
    }
  }
  return bytes.map((byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** Hex bytes as text with escapes for what is not printable ASCII; null when the hex is not whole bytes. */
export function hexToText(hex: string): string | null {
  if (!/^([0-9a-fA-F]{2})*$/.test(hex)) return null;
  let text = "";
  for (let index = 0; index < hex.length; index += 2) {
    const byte = parseInt(hex.slice(index, index + 2), 16);
    text +=
      NAMED[byte] ??
      (byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : `\\x${hex.slice(index, index + 2).toLowerCase()}`);
  }
  return text;
}
