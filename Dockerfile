# svc's container image, for machines that reach an image registry: the same image as the svc/svc
# that `npm run images` assembles without one (scripts/images.sh). docs/install.md shows how to run it.
#   docker build -t svc/svc .
# Node is the binary of the npm package `node` pinned in package-lock.json, as in development.

FROM node:24-bookworm AS build
WORKDIR /opt/svc
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts ./scripts
# The Starlark interpreter (WebAssembly, scripts/build-starlark.sh), loaded from here at run time.
COPY vendor ./vendor
# cmake builds the Jsonnet library (@hanazuki/node-jsonnet, optional: without it, Jsonnet is off).
RUN apt-get update && apt-get install -y --no-install-recommends cmake && rm -rf /var/lib/apt/lists/*
# npm ci installs everything (the build needs the dev dependencies) and builds dist/ (prepare);
# then only the production dependencies stay.
RUN npm ci --no-audit --no-fund \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf src web scripts tsconfig.json tsconfig.build.json

FROM debian:bookworm-slim
# git and certificates: clones of host pipelines and HTTPS to providers; nothing else is needed.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ca-certificates git \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --uid 10001 --user-group --create-home --home-dir /var/lib/svc --shell /usr/sbin/nologin svc
COPY --from=build /opt/svc /opt/svc
RUN ln -s /opt/svc/node_modules/node/bin/node /usr/local/bin/node \
 && ln -s /opt/svc/dist/cli/main.js /usr/local/bin/svc \
 && chmod 0755 /opt/svc/dist/cli/main.js
USER svc
WORKDIR /var/lib/svc
ENV NODE_ENV=production
EXPOSE 80 443 3000
ENTRYPOINT ["svc"]
CMD ["server"]
