/** A reply as a plain value for the rules that read its fields; undefined when it does not decode. `data` is valid during the call only. */
export type ReplyDecoder = (data: Buffer) => unknown;

/** JSON text replies: what field rules read when the plan sends no binary bodies (wire-format.ts). */
export const decodeJson: ReplyDecoder = (data) => {
  try {
    return JSON.parse(data.toString("utf8"));
  } catch {
    return undefined;
  }
};
