# syntax=docker/dockerfile:1
# The gateway as a container: production dependencies only, run by a non-root user under tini,
# started the way `npm start` starts it (tsx is a runtime dependency), so SIGTERM reaches Node
# directly and shuts it down gracefully.

# Node 22 LTS: Node 20 left support in April 2026, and part of the dependency tree
# (@graphql-tools/utils 12 under graphql-yoga) declares node >= 22.15.
ARG NODE_IMAGE=node:22-slim

# --- dependencies: resolved from the lockfile, dev dependencies left out ---------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

# --- runtime -----------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000
# Owned by root, readable by all: the process cannot rewrite its own code.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY src ./src
# The image's unprivileged `node` user (uid 1000).
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini reaps zombies and forwards SIGTERM; Node (not npm) receives it and drains before exiting.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "--import", "tsx", "src/index.ts"]
