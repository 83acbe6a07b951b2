# The agent: its one-file bundle, its engine processes' bundle and the native I/O addon, compiled here with the base's Node headers.
#   docker build --network host -f infra/docker/agent.Dockerfile -t throng-agent .
#   docker run --network host throng-agent connect --server http://127.0.0.1:4000 --token <enrolment token>
# Configuration: its flags (throng-agent --help) and THRONG_IO, XDG_CONFIG_HOME (agent/src/env.ts).
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
# The addon needs a C compiler; the slim base has none, so it is here and not in the final image.
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev && rm -rf /var/lib/apt/lists/*
COPY packages/protocol packages/protocol
COPY packages/wire packages/wire
COPY agent agent
RUN npm run build -w @throng/agent && test -f agent/dist/throng-io.node && test -f agent/dist/throng-engine.mjs

FROM ${BASE}
# The label lets test:deploy prune the images its rebuilds replaced, and nothing else.
LABEL org.opencontainers.image.vendor=Throng org.opencontainers.image.title=throng-agent
COPY --from=build /app/agent/dist/throng-agent.mjs /app/agent/dist/throng-engine.mjs /app/agent/dist/throng-io.node /app/
USER node
# Healthy once enrolled: the credential file exists (the agent writes it on its first ready).
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["sh", "-c", "test -s \"${XDG_CONFIG_HOME:-$HOME/.config}/throng/agent.json\""]
ENTRYPOINT ["node", "/app/throng-agent.mjs"]
CMD ["--help"]
