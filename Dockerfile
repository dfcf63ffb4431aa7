# groundwatch — the collector service (`groundwatch serve`) as a container image. docs/deploy.md
# says how to run it; test/deploy/image.test.ts checks this file's structure and runs the runtime
# stage's file set (dist/, bin/, data, production dependencies only) as the image would.
#
#   docker build -t groundwatch:0.1.0 .                                              # offline backend only
#   docker build --build-arg GROUNDWATCH_ONNX=true -t groundwatch:0.1.0-onnx .        # + onnxruntime-node (ONNX NLI models)
#   docker run --rm --read-only -p 127.0.0.1:4319:4319 -e GROUNDWATCH_TOKEN="$(openssl rand -hex 32)" groundwatch:0.1.0
#
# Stages: `build` compiles dist/ with every dependency; `prod-deps` installs the production
# dependencies alone (and onnxruntime-node when GROUNDWATCH_ONNX=true); `example` is the example RAG
# service of docker-compose.yml; `runtime` (the last stage, what a plain `docker build` gives) holds
# dist/, bin/, the data files and the production node_modules, runs as a non-root user, writes
# nothing (a read-only root filesystem is fine) and starts `groundwatch serve`.

# Pinned to an exact Node.js release (the one the tests run on) and by digest; deploy/images.yaml says
# where the digest comes from (it was not pulled where groundwatch is developed). Override with
# --build-arg NODE_IMAGE=….
ARG NODE_IMAGE=node:20.20.2-bookworm-slim@sha256:2cf067cfed83d5ea958367df9f966191a942351a2df77d6f0193e162b5febfc0

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# --ignore-scripts: no `prepare` build before the sources are here, and no install script (the
# dev-only onnxruntime-node would try to fetch GPU binaries).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts scripts/build.ts
COPY proto/ proto/
COPY src/ src/
RUN npm run build

FROM ${NODE_IMAGE} AS prod-deps
# true: also install onnxruntime-node (CPU; the version package-lock.json pins and the tests ran),
# for `scoring.backend: onnx` or `auto` with a model under HF_HOME. It is an optional peer (and a dev
# dependency, for the tests), so --omit=dev leaves it out: it is made a production dependency in this
# stage's package.json only (the runtime stage copies the build context's). Linux binaries only.
ARG GROUNDWATCH_ONNX=false
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && if [ "$GROUNDWATCH_ONNX" = "true" ]; then \
      version="$(node -p 'require("./package-lock.json").packages["node_modules/onnxruntime-node"].version')" \
      && npm pkg delete devDependencies.onnxruntime-node peerDependencies.onnxruntime-node peerDependenciesMeta.onnxruntime-node \
      && npm install --save-prod --omit=dev --ignore-scripts --no-audit --no-fund "onnxruntime-node@$version" \
      && rm -rf node_modules/onnxruntime-node/bin/napi-v*/darwin node_modules/onnxruntime-node/bin/napi-v*/win32; \
    fi \
 && npm cache clean --force

# The example RAG service and its traffic generator (docker-compose.yml): TypeScript run with tsx
# against the sources, so it keeps the build stage's full dependency set. Not the default target.
FROM build AS example
COPY examples/rag-service/ examples/rag-service/
USER 1000:1000
ENTRYPOINT ["node", "--import", "tsx"]
CMD ["examples/rag-service/server.ts"]

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    GROUNDWATCH_HOST=0.0.0.0 \
    GROUNDWATCH_PORT=4319 \
    HF_HOME=/models
WORKDIR /app
COPY --from=prod-deps /app/node_modules/ node_modules/
COPY --from=build /src/dist/ dist/
COPY package.json ./
COPY bin/ bin/
COPY proto/ proto/
COPY data/lexicon/ data/lexicon/
COPY docs/observation.schema.json docs/runbooks.md docs/
# `groundwatch` on PATH for the other commands (docker run --entrypoint groundwatch IMAGE doctor), and
# /models (HF_HOME) owned by the runtime user, so that a volume mounted there takes `model pull`.
RUN ln -s /app/bin/groundwatch.js /usr/local/bin/groundwatch \
 && mkdir -p /models && chown 1000:1000 /models
# The base image's `node` user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
EXPOSE 4319
# Liveness is GET /healthz (readiness, for a load balancer, is GET /readyz); no token needed for either.
# On the probe listener when GROUNDWATCH_HEALTH_PORT is set (connections holding the main port cannot
# fail it there; it is always plain http), else on GROUNDWATCH_PORT, over https when
# GROUNDWATCH_TLS_CERT_FILE is set (TLS set in the config file only: set GROUNDWATCH_HEALTH_PORT). The
# certificate is not checked: this asks the container's own 127.0.0.1, which it is not issued for.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "const tls = !process.env.GROUNDWATCH_HEALTH_PORT && !!process.env.GROUNDWATCH_TLS_CERT_FILE; require(tls ? 'node:https' : 'node:http').get({ host: '127.0.0.1', port: process.env.GROUNDWATCH_HEALTH_PORT || process.env.GROUNDWATCH_PORT || 4319, path: '/healthz', rejectUnauthorized: false, timeout: 4000 }, (r) => process.exit(r.statusCode === 200 ? 0 : 1)).on('error', () => process.exit(1)).on('timeout', () => process.exit(1))"]
# Bound to 0.0.0.0 (GROUNDWATCH_HOST), so GROUNDWATCH_TOKEN (16+ characters) is required: without it
# serve says so and exits 2. Configuration: GROUNDWATCH_* variables, or a file with
# GROUNDWATCH_CONFIG=/etc/groundwatch/groundwatch.yaml (mounted read-only). Arguments are serve's flags.
ENTRYPOINT ["node", "/app/bin/groundwatch.js", "serve"]
