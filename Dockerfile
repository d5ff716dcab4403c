# svc's container image, for machines that reach an image registry: the same svc/svc that
# `npm run images` assembles without one (scripts/images.sh). Both make the image's files with
# images/svc/rootfs.sh and take its settings from images/svc/image-config.txt; test/images checks
# that this file keeps to them. docs/install.md shows how to run it.
#   docker build -t registry.example.com/svc/svc:0.1.0 .
# Node is the binary of the npm package `node` pinned in package-lock.json, as in development.

FROM node:24-bookworm AS build
WORKDIR /opt/svc
# cmake builds the Jsonnet library (@hanazuki/node-jsonnet, optional: without it, Jsonnet is off).
RUN apt-get update && apt-get install -y --no-install-recommends cmake binutils && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY web ./web
COPY scripts ./scripts
COPY docs/settings.md docs/caches.md ./docs/
# The Starlark interpreter (WebAssembly, scripts/build-starlark.sh), loaded from here at run time.
COPY vendor ./vendor
COPY images/svc ./images/svc
# npm ci installs everything and builds dist/ (prepare); rootfs.sh keeps of it what runs.
RUN npm ci --no-audit --no-fund && bash images/svc/rootfs.sh /opt/svc /rootfs

FROM scratch
COPY --from=build /rootfs /
ENV PATH=/usr/local/bin:/usr/bin:/bin
ENV NODE_ENV=production
USER 10001:10001
WORKDIR /var/lib/svc
EXPOSE 80 443 3000
ENTRYPOINT ["svc"]
CMD ["server"]
