import net from "node:net";

/** Asks the OS for a port nobody listens on (port 0), then releases it for a child to take. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("the OS gave no free port"))));
    });
  });
}

/** Fails with a message naming the service and the variable that moves it when `port` is taken. */
export function assertPortFree(port: number, service: string, envName: string, hint = ""): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "EADDRINUSE") return reject(error);
      reject(
        new Error(
          `Port ${port} for ${service} is already in use${hint}. Stop whatever listens there or set ${envName}=<another port>.`,
        ),
      );
    });
    // No host: binds every address, so anything listening on any interface counts as taken.
    server.listen(port, () => server.close(() => resolve()));
  });
}
