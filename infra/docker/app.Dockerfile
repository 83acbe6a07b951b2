# The api and the workers (same image, another command), the migrate command and the small api balancer.
#   docker build --network host -f infra/docker/app.Dockerfile -t throng-app .
#   api:      node dist/api.mjs (the default command)
#   workers:  node dist/workers.mjs
#   migrate:  node dist/migrate.mjs
#   balancer: node infra/docker/balancer.mjs
# dist/ holds esbuild bundles of the TypeScript entry points (infra/docker/bundle-app.mjs), so the image carries no
# node_modules but the one external package in dist/node_modules.
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
COPY packages/wire/package.json packages/wire/
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

FROM deps AS build
COPY tsconfig.base.json tsconfig.json ./
COPY packages packages
COPY db db
COPY apps/api apps/api
COPY workers workers
COPY infra/docker/bundle-app.mjs infra/docker/
RUN node infra/docker/bundle-app.mjs /out

FROM ${BASE}
# The label lets test:deploy prune the images its rebuilds replaced, and nothing else.
LABEL org.opencontainers.image.vendor=Throng org.opencontainers.image.title=throng-app
ENV NODE_ENV=production
# The report's Download PDF prints it in Chromium, which adds ~300 MB: only with --build-arg WITH_CHROMIUM=true.
# Without it the api answers GET .../report.pdf with 503 saying what to install; nothing else needs it.
ARG WITH_CHROMIUM=false
RUN if [ "$WITH_CHROMIUM" = "true" ]; then \
      apt-get update && apt-get install -y --no-install-recommends chromium fonts-liberation && rm -rf /var/lib/apt/lists/*; \
    fi
WORKDIR /app
# Everything stays root-owned and read-only to the process's user. db/src/migrate.ts reads the migrations from
# ../migrations beside its own file: /app/migrations for /app/dist/migrate.mjs.
COPY --from=build /out dist
COPY db/migrations migrations
COPY infra/docker/balancer.mjs infra/docker/healthcheck.mjs infra/docker/
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "infra/docker/healthcheck.mjs", "api"]
CMD ["node", "dist/api.mjs"]
