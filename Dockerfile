# One image for the operator, the receiver and the command line.
#   docker build -t ghcr.io/waitgate/waitgate:dev .
#   operator: node dist/operator/main.js (the default)   receiver: node dist/receiver/main.js
#   command line: node bin/waitgate.js ...
# Each runs under tini (the ENTRYPOINT). The chart sets the container's command, which replaces
# the ENTRYPOINT, so its default commands start with /usr/bin/tini -- as well.
#
# The base is an argument so that a machine no registry serves can build FROM a copy assembled
# locally (hack/image.sh does that: waitgate.local/node:<pinned Node>-bookworm-slim, made from
# Debian's packages and the pinned Node and npm). Any base must be Debian bookworm with node and
# npm on PATH and the user 1000:1000.
ARG NODE_IMAGE=node:24-bookworm-slim
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api api
COPY operator operator
COPY receiver receiver
COPY cli cli
COPY lib lib
COPY hack/*.ts hack/
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE}
# tini runs as PID 1 and reaps. A check's process group is killed when it times out and again
# when it exits; a killed child whose parent has already gone is reparented to PID 1, and node
# in that place would never reap it (it waits only for the pids it started): each would stay a
# zombie holding a pid until the pod could start no more checks. Debian installs /usr/bin/tini.
# Exec-mode check scripts run in this container: curl (HTTPS with ca-certificates), jq and git
# are what docs/checks.md tells them they can use.
RUN apt-get update \
 && apt-get install -y --no-install-recommends tini curl jq ca-certificates git \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production
# Two malloc arenas instead of eight per core: the HTTP and TLS buffers of thousands of
# apiserver requests otherwise leave resident memory the JavaScript heap no longer uses.
ENV MALLOC_ARENA_MAX=2
# Freed memory over 128 KiB at the top of the heap goes back to the system at once.
ENV MALLOC_TRIM_THRESHOLD_=131072
COPY --from=prod-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY bin bin
# The node image's unprivileged user; checks in exec mode run as this user too.
USER 1000:1000
# tini forwards SIGTERM to node, which drains and exits; tini exits with node's status.
ENTRYPOINT ["/usr/bin/tini", "--", "node"]
CMD ["dist/operator/main.js"]
