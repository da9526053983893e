# One image for the operator, the receiver and the command line.
#   docker build -t ghcr.io/waitgate/waitgate:dev .
#   operator: node dist/operator/main.js (the default)   receiver: node dist/receiver/main.js
#   command line: node bin/waitgate.js ...
FROM node:20-bookworm-slim AS build
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

FROM node:20-bookworm-slim AS prod-deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=prod-deps /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY package.json ./
COPY bin bin
# The node image's unprivileged user; checks in exec mode run as this user too.
USER 1000:1000
ENTRYPOINT ["node"]
CMD ["dist/operator/main.js"]
