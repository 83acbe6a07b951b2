/** Where the orchestrator's own lines go: one call per line, already prefixed if it wants to be. */
export type Log = (line: string) => void;

/** A log that writes `[name] line` to stdout; names are padded so columns of child output line up. */
export function prefixedLog(name: string, width = 8): Log {
  const prefix = `[${name}]`.padEnd(width + 2);
  return (line) => process.stdout.write(`${prefix} ${line}\n`);
}
