# Refkit service image (production: no demo, no seeding).
#   docker build -t refkit .
#   docker run -p 8787:8787 -e DATABASE_URL=postgres://... -e REFKIT_SECRET_KEY=... refkit
#   docker run --rm -it -e DATABASE_URL=postgres://... refkit refkit user create --email you@example.com
# docker-compose.yml runs it with PostgreSQL and Redis.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source where no prebuilt binary is reachable.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
COPY bin ./bin
# The same install path as CI (.ci/run): npm ci, or npm install from the same lockfile where a registry
# lacks some platform's optional packages and npm ci refuses the lockfile.
RUN (npm ci --ignore-scripts --no-audit --no-fund || npm install --ignore-scripts --no-audit --no-fund) && npm rebuild better-sqlite3
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
# REFKIT_CLI: the banner's hints say `refkit ...`, the command on PATH here (npx is for a clone).
ENV NODE_ENV=production PORT=8787 HOST=0.0.0.0 DATABASE_URL=sqlite:/data/refkit.db REFKIT_CLI=refkit
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
# `refkit` on PATH: the CLI in the container acts on its DATABASE_URL (Node follows the link to /app/bin).
RUN ln -s /app/bin/refkit.js /usr/local/bin/refkit && mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8787
HEALTHCHECK --interval=30s --timeout=3s CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/server/cli.js", "serve"]
