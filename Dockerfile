# One image recipe for every Go service: `--build-arg SERVICE=rest` (or rpc,
# authsvc, realtime, storage, payments, gateway, migrate, sweeper, darajasim). The gateway image also
# carries the built frontend; the migrate image carries sql/.
FROM node:20-bookworm-slim AS frontend
WORKDIR /src/frontend
COPY frontend/package.json frontend/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY frontend/ ./
RUN npm run build

FROM golang:1.26-bookworm AS build
ARG SERVICE
WORKDIR /src
COPY go.work ./
COPY platform/ platform/
COPY gateway/ gateway/
COPY rest/ rest/
COPY rpc/ rpc/
COPY authsvc/ authsvc/
COPY realtime/ realtime/
COPY storage/ storage/
COPY payments/ payments/
COPY devstack/ devstack/
COPY sql/ sql/
RUN set -eu; \
    case "$SERVICE" in \
      migrate) pkg=./platform/cmd/migrate ;; \
      sweeper) pkg=./devstack/cmd/sweeper ;; \
      darajasim) pkg=./payments/cmd/darajasim ;; \
      *) pkg=./$SERVICE/cmd/$SERVICE ;; \
    esac; \
    CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/app "$pkg"

FROM alpine:3.22
# wget (busybox) answers the compose health checks.
RUN adduser -D -H -u 10001 kejanest
COPY --from=build /out/app /usr/local/bin/app
COPY --from=frontend /src/frontend/dist /srv/frontend
COPY sql/ /srv/sql/
ENV FRONTEND_DIR=/srv/frontend
WORKDIR /srv
USER kejanest
ENTRYPOINT ["/usr/local/bin/app"]
