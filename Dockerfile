# syntax=docker/dockerfile:1

# Build: install every dependency, compile TypeScript to dist/.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime: production dependencies only, as a non-root user.
# The heap limits are the ones `npm start` uses (about 90 MB live at 5,000 subscriptions); without
# them V8 lets garbage grow with the host's memory. Override NODE_OPTIONS to give a larger bot more.
# Two malloc arenas instead of glibc's eight per core: the GC's and libuv's threads otherwise each
# keep their own, and the freed memory in them stays resident.
FROM node:24-slim
ENV NODE_ENV=production \
    NODE_OPTIONS="--max-old-space-size=256 --max-semi-space-size=8" \
    MALLOC_ARENA_MAX=2 \
    DATA_DIR=/data \
    HTTP_PORT=8080 \
    HTTP_HOST=0.0.0.0
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.HTTP_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node itself is PID 1 and gets SIGTERM, so the bot drains its outbox and flushes the store.
CMD ["node", "dist/main.js"]
