// The images' HEALTHCHECK: `node healthcheck.mjs api|web|balancer|workers` exits 0 when that process answers on loopback.
// Host networking puts every process on the host's loopback, each on the port its own variable names.
const checks = {
  api: { port: process.env.API_PORT || "4000", path: "/health", good: (status) => status === 200 },
  web: { port: process.env.PORT || "3000", path: "/", good: (status) => status < 500 },
  // Through the balancer to some api: healthy when at least one replica answers.
  balancer: { port: process.env.BALANCER_PORT || "4000", path: "/health", good: (status) => status === 200 },
  // The workers' small HTTP server (/metrics and /health, WORKERS_METRICS_PORT); 0 turns it off, and this check with it.
  workers: { port: process.env.WORKERS_METRICS_PORT || "9464", path: "/health", good: (status) => status === 200 },
};

const check = checks[process.argv[2]];
if (!check) {
  console.error(`usage: healthcheck.mjs ${Object.keys(checks).join("|")}`);
  process.exit(2);
}
try {
  const response = await fetch(`http://127.0.0.1:${check.port}${check.path}`, {
    redirect: "manual",
    signal: AbortSignal.timeout(4000),
  });
  process.exit(check.good(response.status) ? 0 : 1);
} catch (error) {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
