/**
 * White space as String.prototype.trim and JavaScript's \s read it, as a regular expression character class body,
 * for patterns the OpenAPI document shows: spelled out, since Python's \s (schemathesis generates with Python) also
 * takes U+001C..U+001F, which trim keeps.
 */
export const JS_SPACE = "\\t\\n\\x0b\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
