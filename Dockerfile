# berth image: `docker build -t berth:0.1.0 .`
# Runs the controller by default (deploy/), and any other command given as args:
# the pods of `berth sweep --emit indexed-job` run `sweep ... --shard i/N` in it.
# Stage 1 compiles src/ to dist/ with tsc (npm run build, which also copies the
# worker pool's entry) and drops the dev dependencies; stage 2 runs the compiled
# JavaScript with plain `node` as PID 1, so SIGTERM reaches the controller itself
# (no npx, no tsx: nothing is compiled or cached at run time, so the root
# filesystem can be read-only). Non-root (65532).
FROM node:20-bookworm-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
USER 65532:65532
ENTRYPOINT ["node", "/app/dist/cli/main.js"]
CMD ["controller"]
