// The plan schema's own complaints (zod's: "Too big: expected array to have <=20 items") as the form says things:
// "at most 20". Messages the schema words itself ("must be at least 10 ms") pass through unchanged. Pure.

const NOUNS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "yes or no (true or false)",
  array: "a list",
  object: "a group of fields (key: value)",
};

const RULES: readonly [RegExp, (...groups: string[]) => string][] = [
  [
    /^Too big: expected (?:array|set) to have <=?(\d+) items?$/,
    (n) => `at most ${n} ${Number(n) === 1 ? "item" : "items"}`,
  ],
  [
    /^Too small: expected (?:array|set) to have >=?(\d+) items?$/,
    (n) => (n === "1" ? "give at least one" : `at least ${n} items`),
  ],
  [/^Too big: expected string to have <=?(\d+) characters?$/, (n) => `at most ${n} characters`],
  [
    /^Too small: expected string to have >=?(\d+) characters?$/,
    (n) => (n === "1" ? "fill this in" : `at least ${n} characters`),
  ],
  [/^Too big: expected (?:number|int) to be <=(\S+)$/, (n) => `must be at most ${n}`],
  [/^Too big: expected (?:number|int) to be <(\S+)$/, (n) => `must be below ${n}`],
  [/^Too small: expected (?:number|int) to be >=(\S+)$/, (n) => `must be at least ${n}`],
  [/^Too small: expected (?:number|int) to be >(\S+)$/, (n) => `must be above ${n}`],
  [/^Invalid input: expected int, received number$/, () => "must be a whole number"],
  [/^Invalid input: expected (\w+), received (\w+)$/, (expected) => `must be ${NOUNS[expected] ?? expected}`],
  [/^Invalid (?:string|input): must match pattern .*$/, () => "is not in the form this field takes"],
  [
    /^Unrecognized keys?: (.+)$/,
    (keys) => `${keys.replace(/"/g, "")}: not a field here (check its spelling and where it sits)`,
  ],
  [/^Invalid input$/, () => "is not a value this field takes"],
];

/** A schema message in the form's words; one the schema already words for people is returned as it is. */
export function schemaWords(message: string): string {
  for (const [pattern, words] of RULES) {
    const match = pattern.exec(message);
    if (match) return words(...match.slice(1));
  }
  return message;
}
