# A stand-in for the official redis:7-bookworm image, for machines that reach Debian's packages but no image
# registry (npm run test:deploy builds it then): Debian's Redis 7, data in /data, `redis-server <flags>` as the
# command, redis-cli for the health check.
ARG BASE=throng-base:node20-bookworm
FROM ${BASE}
RUN apt-get update && apt-get install -y --no-install-recommends redis-server && rm -rf /var/lib/apt/lists/*
# A named volume mounted here starts with this directory's owner, so Redis never needs root.
RUN mkdir -p /data && chown redis:redis /data
WORKDIR /data
USER redis
CMD ["redis-server"]
