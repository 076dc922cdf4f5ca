# syntax=docker/dockerfile:1
# A static vitrine binary on a distroless base, running as a non-root user,
# with its SQLite database on a volume. For PostgreSQL, set VITRINE_DB to a
# postgres:// URL (see compose.yaml and docs/deploy.md).

FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.Version=${VERSION}" -o /out/vitrine ./cmd/vitrine \
    && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/vitrine /usr/local/bin/vitrine
# The volume's mount point belongs to the nonroot user (65532).
COPY --from=build --chown=65532:65532 /out/data /data
VOLUME /data
ENV VITRINE_DB=/data/vitrine.db \
    VITRINE_ADDR=0.0.0.0:8080 \
    VITRINE_LOG_FORMAT=json
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/usr/local/bin/vitrine"]
CMD ["serve"]
