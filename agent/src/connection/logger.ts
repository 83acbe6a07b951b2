/** Where the agent reports what it is doing; the CLI prints it, tests capture it. */
export interface Logger {
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** Logger for tests and embedders that want silence. */
export const silentLogger: Logger = { info() {}, warn() {}, error() {} };
