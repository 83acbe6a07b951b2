# The api and the workers (same image, another command), the migrate command and the small api balancer.
#   docker build --network host -f infra/docker/app.Dockerfile -t throng-app .
#   api:      (default command)
#   workers:  node --import tsx workers/src/main.ts
#   migrate:  node --import tsx db/src/migrate-main.ts
#   balancer: node infra/docker/balancer.mjs
# Configuration: the variables parsed in apps/api/src/env.ts and workers/src/env.ts (README.md, Environment).
ARG BASE=node:20-bookworm-slim

# Dependencies of every workspace, from the lockfile alone: this stage is the same in all three Dockerfiles, so
# Docker builds it once and the others reuse its layers. Install scripts stay off (esbuild works without its own).
FROM ${BASE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/core/package.json packages/core/
COPY packages/protocol/package.json packages/protocol/
COPY packages/runtime/package.json packages/runtime/
COPY apps/api/package.json apps/api/
COPY apps/web/package.json apps/web/
COPY workers/package.json workers/
COPY agent/package.json agent/
COPY cli/package.json cli/
COPY db/package.json db/
COPY e2e/package.json e2e/
COPY infra/docker/build-ca/ /tmp/build-ca/
# npm 10 can end with "Exit handler never called!" and status 0 after failed fetches: check what must be there.
RUN cat /tmp/build-ca/*.crt > /tmp/build-ca.pem 2>/dev/null || true; \
    if [ -s /tmp/build-ca.pem ]; then export NODE_EXTRA_CA_CERTS=/tmp/build-ca.pem; fi; \
    npm ci --ignore-scripts --no-audit --no-fund && npm cache clean --force \
    && test -f node_modules/tsx/package.json && test -f node_modules/next/package.json

FROM ${BASE}
# The label lets test:deploy prune the images its rebuilds replaced, and nothing else.
LABEL org.opencontainers.image.vendor=Throng org.opencontainers.image.title=throng-app
ENV NODE_ENV=production
WORKDIR /app
# Everything stays root-owned and read-only to the process's user.
COPY --from=deps /app /app
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
COPY db db
COPY apps/api apps/api
COPY workers workers
COPY infra/docker/balancer.mjs infra/docker/healthcheck.mjs infra/docker/
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "infra/docker/healthcheck.mjs", "api"]
CMD ["node", "--import", "tsx", "apps/api/src/main.ts"]
