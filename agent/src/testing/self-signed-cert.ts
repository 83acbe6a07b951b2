import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export interface SelfSignedCert {
  certFile: string;
  keyFile: string;
  cert: Buffer;
  key: Buffer;
  cleanup(): Promise<void>;
}

/**
 * A throwaway self-signed certificate for 127.0.0.1 and localhost, made by `openssl` at test time (no private
 * key is ever committed); valid one day.
 */
export async function selfSignedCert(): Promise<SelfSignedCert> {
  const dir = await mkdtemp(join(tmpdir(), "throng-tls-"));
  const certFile = join(dir, "cert.pem");
  const keyFile = join(dir, "key.pem");
  await run("openssl", [
    "req",
    "-x509",
    "-newkey",
    "ec",
    "-pkeyopt",
    "ec_paramgen_curve:prime256v1",
    "-nodes",
    "-days",
    "1",
    "-subj",
    "/CN=throng test",
    "-addext",
    "subjectAltName=IP:127.0.0.1,DNS:localhost",
    "-keyout",
    keyFile,
    "-out",
    certFile,
  ]);
  return {
    certFile,
    keyFile,
    cert: await readFile(certFile),
    key: await readFile(keyFile),
    cleanup: () => rm(dir, { recursive: true, force: true }),
  };
}
