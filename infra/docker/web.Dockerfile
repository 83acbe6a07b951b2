# The web dashboard (Next.js, `next start`); it forwards /api/* to API_URL.
#   docker build --network host -f infra/docker/web.Dockerfile -t throng-web .
# Configuration: PORT, API_URL (apps/web/lib/proxy.ts), as with npm start.
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

FROM deps AS build
ENV NEXT_TELEMETRY_DISABLED=1
COPY tsconfig.base.json tsconfig.json ./
COPY packages/protocol packages/protocol
COPY apps/web apps/web
RUN npm run build -w @throng/web && rm -rf apps/web/.next/cache

FROM ${BASE}
# The label lets test:deploy prune the images its rebuilds replaced, and nothing else.
LABEL org.opencontainers.image.vendor=Throng org.opencontainers.image.title=throng-web
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000
WORKDIR /app
COPY --from=deps /app /app
COPY --from=build /app/packages/protocol packages/protocol
COPY --from=build /app/apps/web apps/web
COPY infra/docker/healthcheck.mjs infra/docker/
USER node
WORKDIR /app/apps/web
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["node", "/app/infra/docker/healthcheck.mjs", "web"]
CMD ["sh", "-c", "exec node /app/node_modules/next/dist/bin/next start -p \"$PORT\""]
