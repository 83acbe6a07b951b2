# A stand-in for the official postgres:15-bookworm image, for machines that reach Debian's packages but no image
# registry (npm run test:deploy builds it then). Debian's PostgreSQL 15 with the same contract the compose file
# uses: POSTGRES_USER, POSTGRES_PASSWORD, POSTGRES_DB, PGDATA, `postgres <flags>` as the command, pg_isready.
ARG BASE=throng-base:node20-bookworm
FROM ${BASE}
RUN mkdir -p /etc/postgresql-common && echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf \
 && apt-get update && apt-get install -y --no-install-recommends postgresql-15 && rm -rf /var/lib/apt/lists/*
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
# A named volume mounted here starts with this directory's owner, so PostgreSQL never needs root.
RUN mkdir -p "$PGDATA" /var/run/postgresql && chown -R postgres:postgres /var/lib/postgresql /var/run/postgresql && chmod 700 "$PGDATA"
COPY infra/docker/postgres-stand-in-entrypoint.sh /usr/local/bin/
USER postgres
ENTRYPOINT ["postgres-stand-in-entrypoint.sh"]
CMD ["postgres"]
