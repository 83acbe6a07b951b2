import protobuf from "protobufjs";

// A plan's .proto text, parsed once, and protobuf's JSON mapping checked strictly: a body that does not fit its
// message type is an error naming the field, never a message quietly sent without it (protobufjs's own
// fromObject drops unknown fields and coerces wrong types).

/** The plan field the .proto text comes from, named in every error about it. */
const PROTO_FIELD = "protobuf.proto";

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** google/protobuf/*.proto files protobufjs carries itself (Timestamp, Duration, Any, Struct, wrappers, Empty, FieldMask). */
function bundledImport(file: string): protobuf.INamespace | undefined {
  const at = file.lastIndexOf("google/protobuf/");
  const name = at >= 0 ? file.slice(at) : file;
  const common = protobuf.common as unknown as Record<string, protobuf.INamespace>;
  return Object.hasOwn(common, name) ? common[name] : undefined;
}

/**
 * Parses .proto text into a resolved Root: field names as written (keepCase), nothing read from disk. Imports of
 * google/protobuf well-known types are supplied from protobufjs; any other import is an error saying what to do.
 */
export function parseProto(proto: string): protobuf.Root {
  let parsed: protobuf.IParserResult;
  try {
    parsed = protobuf.parse(proto, { keepCase: true });
  } catch (error) {
    throw new Error(`${PROTO_FIELD} does not parse: ${errorText(error)}; fix the .proto text`);
  }
  for (const file of [...(parsed.imports ?? []), ...(parsed.weakImports ?? [])]) {
    const bundled = bundledImport(file);
    if (!bundled?.nested) {
      throw new Error(
        `${PROTO_FIELD} imports "${file}", which the agent cannot load: paste the messages it needs into the same .proto text ` +
          "(only the google/protobuf well-known types are built in)",
      );
    }
    parsed.root.addJSON(bundled.nested);
  }
  try {
    parsed.root.resolveAll();
  } catch (error) {
    throw new Error(`${PROTO_FIELD}: ${errorText(error)}; define that type in the .proto text or fix its name`);
  }
  return parsed.root;
}

/** Every message type's full name in `root` ("game.Move"), for errors that list what there is. */
export function messageTypeNames(root: protobuf.Root): string[] {
  const names: string[] = [];
  const walk = (namespace: protobuf.NamespaceBase) => {
    for (const nested of namespace.nestedArray) {
      if (nested instanceof protobuf.Type) names.push(nested.fullName.replace(/^\./, ""));
      if (nested instanceof protobuf.Namespace || nested instanceof protobuf.Type) walk(nested);
    }
  };
  walk(root);
  return names.filter((name) => !name.startsWith("google.protobuf."));
}

/** The message type `name` in `root`; `field` is the plan field that named it. */
export function findMessageType(root: protobuf.Root, name: string, field: string): protobuf.Type {
  // Only the full name: protobufjs's own lookup also finds "Move" in any package, which is ambiguous across packages.
  let found: protobuf.ReflectionObject | null = root;
  for (const part of name.replace(/^\./, "").split("."))
    found = found instanceof protobuf.Namespace ? found.get(part) : null;
  if (found instanceof protobuf.Type) return found;
  const known = messageTypeNames(root);
  const list = known.length > 20 ? `${known.slice(0, 20).join(", ")}, …` : known.join(", ");
  throw new Error(
    `${field}: no message type "${name}" in ${PROTO_FIELD} (it defines ${list || "none"}); name one of those, with its package`,
  );
}

const INT32 = [-2_147_483_648, 2_147_483_647] as const;
const UINT32 = [0, 4_294_967_295] as const;
const INT64 = [-(2n ** 63n), 2n ** 63n - 1n] as const;
const UINT64 = [0n, 2n ** 64n - 1n] as const;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

const shown = (value: unknown) =>
  typeof value === "string"
    ? JSON.stringify(value)
    : Array.isArray(value)
      ? "a list"
      : value === null
        ? "null"
        : typeof value === "object"
          ? "an object"
          : String(value);

/** An error about one field of a body: its path (`body.pos.x`), the field's type and what to write instead. */
function fieldError(path: string, expected: string, field: protobuf.Field, value: unknown): Error {
  return new Error(
    `${path}: ${field.parent?.name}.${field.name} is ${field.repeated ? "repeated " : ""}${field.type}: write ${expected} (got ${shown(value)})`,
  );
}

function inRange(value: number | bigint, [min, max]: readonly [number | bigint, number | bigint]) {
  return value >= min && value <= max;
}

/** A JSON integer, or one written as a decimal string (exact beyond 2^53), for a 64-bit field. */
function int64Value(value: unknown, range: readonly [bigint, bigint]): number | string | undefined {
  if (typeof value === "number") return Number.isInteger(value) && inRange(BigInt(value), range) ? value : undefined;
  if (typeof value === "string" && /^-?\d{1,20}$/.test(value)) return inRange(BigInt(value), range) ? value : undefined;
  return undefined;
}

/** One scalar or enum value of protobuf's JSON mapping as protobufjs's encoder takes it; throws naming the field. */
function scalarValue(field: protobuf.Field, value: unknown, path: string): unknown {
  const enumType = field.resolvedType instanceof protobuf.Enum ? field.resolvedType : undefined;
  if (enumType) {
    if (typeof value === "string" && Object.hasOwn(enumType.values, value)) return enumType.values[value];
    if (typeof value === "number" && Number.isInteger(value) && inRange(value, INT32)) return value;
    return fieldError(path, `one of ${Object.keys(enumType.values).join(", ")} (or its number)`, field, value);
  }
  switch (field.type) {
    case "double":
    case "float":
      return typeof value === "number" ? value : fieldError(path, "a number", field, value);
    case "int32":
    case "sint32":
    case "sfixed32":
      return typeof value === "number" && Number.isInteger(value) && inRange(value, INT32)
        ? value
        : fieldError(path, "a whole number from -2147483648 to 2147483647", field, value);
    case "uint32":
    case "fixed32":
      return typeof value === "number" && Number.isInteger(value) && inRange(value, UINT32)
        ? value
        : fieldError(path, "a whole number from 0 to 4294967295", field, value);
    case "int64":
    case "sint64":
    case "sfixed64":
      return (
        int64Value(value, INT64) ?? fieldError(path, 'a whole number (as a "decimal string" beyond 2^53)', field, value)
      );
    case "uint64":
    case "fixed64":
      return (
        int64Value(value, UINT64) ??
        fieldError(path, 'a whole number from 0 (as a "decimal string" beyond 2^53)', field, value)
      );
    case "bool":
      return typeof value === "boolean" ? value : fieldError(path, "true or false", field, value);
    case "string":
      return typeof value === "string" ? value : fieldError(path, "a string", field, value);
    case "bytes":
      return typeof value === "string" && BASE64.test(value)
        ? Buffer.from(value, "base64")
        : fieldError(path, "the bytes as a base64 string", field, value);
    default:
      return fieldError(path, "a value of a type the agent knows", field, value);
  }
}

function fieldValue(field: protobuf.Field, value: unknown, path: string): unknown {
  const result =
    field.resolvedType instanceof protobuf.Type
      ? jsonToMessage(field.resolvedType, value, path)
      : scalarValue(field, value, path);
  if (result instanceof Error) throw result;
  return result;
}

const MAP_KEY_INTEGER = /^-?\d+$/;

/**
 * A JSON value (protobuf's JSON mapping: field names as in the .proto or lowerCamelCase, enums by name, 64-bit
 * integers as numbers or decimal strings, bytes as base64) as a plain object protobufjs's `encode` takes.
 * Throws an Error naming the field (`body.pos.x`) on an unknown field or a value of the wrong type.
 */
export function jsonToMessage(type: protobuf.Type, json: unknown, path = "body"): Record<string, unknown> {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    throw new Error(
      `${path}: message ${type.fullName.replace(/^\./, "")} is written as a JSON object (got ${shown(json)})`,
    );
  }
  const message: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(json)) {
    const field = fieldNamed(type, key);
    const at = `${path}.${key}`;
    if (!field) {
      const names = type.fieldsArray.map((f) => f.name).join(", ");
      throw new Error(
        `${at}: message ${type.fullName.replace(/^\./, "")} has no field "${key}" (its fields: ${names || "none"}); remove it from the body or add it to ${PROTO_FIELD}`,
      );
    }
    if (value === null) continue; // JSON null is an absent field
    if (field instanceof protobuf.MapField) {
      if (typeof value !== "object" || Array.isArray(value))
        throw fieldError(at, "a JSON object (a map)", field, value);
      const map: Record<string, unknown> = {};
      for (const [mapKey, entry] of Object.entries(value as Record<string, unknown>)) {
        if (field.keyType !== "string" && field.keyType !== "bool" && !MAP_KEY_INTEGER.test(mapKey)) {
          throw new Error(
            `${at}: map ${type.name}.${field.name} has ${field.keyType} keys: "${mapKey}" is not a whole number`,
          );
        }
        map[mapKey] = fieldValue(field, entry, `${at}.${mapKey}`);
      }
      message[field.name] = map;
    } else if (field.repeated) {
      if (!Array.isArray(value)) throw fieldError(at, "a JSON list", field, value);
      message[field.name] = value.map((item, index) => fieldValue(field, item, `${at}[${index}]`));
    } else {
      message[field.name] = fieldValue(field, value, at);
    }
  }
  return message;
}

/** The field a JSON key names: its name in the .proto, or its lowerCamelCase JSON name. */
function fieldNamed(type: protobuf.Type, key: string): protobuf.Field | undefined {
  const byName = Object.hasOwn(type.fields, key) ? type.fields[key] : undefined;
  return byName ?? type.fieldsArray.find((field) => protobuf.util.camelCase(field.name) === key);
}
