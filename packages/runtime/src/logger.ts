import pino from "pino";

/** One JSON line per event; secrets are redacted wherever they appear under these keys. */
export function createLogger(name: string, level: string, destination?: pino.DestinationStream) {
  const options: pino.LoggerOptions = {
    name,
    level,
    redact: {
      // "secrets": a run assignment's or trial's organisation secrets (RunAssignment.secrets), should one ever be logged whole.
      paths: [
        "token",
        "secret",
        "secrets",
        "password",
        "credential",
        "*.token",
        "*.secret",
        "*.secrets",
        "*.password",
        "*.credential",
        "req.headers.cookie",
        "req.headers.authorization",
      ],
      censor: "[redacted]",
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
export type Logger = ReturnType<typeof createLogger>;
