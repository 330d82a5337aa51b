# syntax=docker/dockerfile:1
# The gateway as a container: compiled JavaScript run by `node` (no tsx, no TypeScript), production
# dependencies only, a non-root user under tini, so SIGTERM reaches Node directly and shuts it
# down gracefully.
#
# What ships of the simulator, deliberately: the compiled simulator (dist/simulator). It is the
# gateway's demo upstream when UPSTREAM_URL is unset, so `docker run -p 4000:4000 <image>` answers
# queries on demo data as `npm start` does, and it runs alone as `node dist/simulator/main.js`.
# With UPSTREAM_URL set it is never started. The bench and the scripts (schema printer, soak) do
# not ship: they are development tools that run from the TypeScript sources through tsx.

# Node 22 LTS: Node 20 left support in April 2026, and part of the dependency tree
# (@graphql-tools/utils 12 under graphql-yoga) declares node >= 22.15.
ARG NODE_IMAGE=node:22-slim

# --- build: every dependency (TypeScript is a dev dependency), then tsc into dist/ ------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

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
# Owned by root, readable by all: the process cannot rewrite its own code. package.json says
# `"type": "module"`, which makes Node load dist/'s .js files as ES modules.
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY --from=build /app/dist ./dist
# The documentation pages GraphiQL's "Guide" link opens (served at /docs/ while GRAPHIQL is on).
COPY docs ./docs
# The image's unprivileged `node` user (uid 1000).
USER node
EXPOSE 4000
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# tini reaps zombies and forwards SIGTERM; Node (not npm) receives it and drains before exiting.
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/index.js"]
