# The web dashboard (Next.js's standalone server: server.js and the node_modules files it traced); it forwards
# /api/* to API_URL.
#   docker build --network host -f infra/docker/web.Dockerfile -t throng-web .
# Configuration: PORT, API_URL (apps/web/lib/server/proxy.ts), as with npm start, and HOSTNAME, the address it listens on.
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
# THRONG_WEB_STANDALONE: apps/web/next.config.ts asks for the standalone output only when it is set.
ENV NEXT_TELEMETRY_DISABLED=1 THRONG_WEB_STANDALONE=1
COPY tsconfig.base.json tsconfig.json ./
COPY packages/protocol packages/protocol
COPY apps/web apps/web
RUN npm run build -w @throng/web && test -f apps/web/.next/standalone/apps/web/server.js \
    && mkdir -p apps/web/public

FROM ${BASE}
# The label lets test:deploy prune the images its rebuilds replaced, and nothing else.
LABEL org.opencontainers.image.vendor=Throng org.opencontainers.image.title=throng-web
# HOSTNAME: server.js listens there; without it, it would take the container's host name that Docker sets.
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 HOSTNAME=0.0.0.0
WORKDIR /app
# Everything stays root-owned and read-only to the process's user. The standalone output leaves out the static
# files (.next/static, public/), which it serves from beside server.js.
COPY --from=build /app/apps/web/.next/standalone ./
COPY --from=build /app/apps/web/.next/static apps/web/.next/static
COPY --from=build /app/apps/web/public apps/web/public
COPY infra/docker/healthcheck.mjs infra/docker/
USER node
WORKDIR /app/apps/web
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/infra/docker/healthcheck.mjs", "web"]
CMD ["node", "server.js"]
