import type { Logger } from "../connection/logger";

/** Progress on stdout, problems on stderr, so `2>/dev/null` leaves only the agent's story. */
export const consoleLogger: Logger = {
  info: (message) => console.log(message),
  warn: (message) => console.error(`warning: ${message}`),
  error: (message) => console.error(`error: ${message}`),
};
