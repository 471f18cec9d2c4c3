# palimpsest: multi-stage build, production dependencies only, runs as the unprivileged `node` user.
# The TypeScript sources are compiled by bin/build.js (esbuild) when the image is built, and run on plain node.

FROM node:24-bookworm-slim AS deps
WORKDIR /app
# better-sqlite3 downloads a prebuilt binary; the toolchain is only for platforms without one.
RUN apt-get update -qq && apt-get install -y -qq --no-install-recommends python3 make g++ >/dev/null && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json tsconfig.json ./
COPY bin ./bin
COPY src ./src
COPY projections ./projections
# Built here, as root: the `palimpsest` command finds this build of these very sources and runs it. dist/ itself is
# the node user's (the build inside stays root's): with custom projections mounted under projections/ (compose mounts
# deploy/projections at projections/custom), the sources differ, and the command compiles them there at start.
RUN node bin/build.js && mkdir -p /data && chown node:node /data /app/dist
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/palimpsest.js"]
CMD ["serve"]
