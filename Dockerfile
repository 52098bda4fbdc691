# syntax=docker/dockerfile:1
# Build: a static binary (modernc SQLite is pure Go, so no cgo is needed).
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=${VERSION}" -o /out/kubequiz ./cmd/kubequiz \
 && mkdir -p /out/data

# Run: no shell, no package manager, a non-root user, the database on a volume.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/kubequiz /kubequiz
COPY --from=build --chown=nonroot:nonroot /out/data /data
USER nonroot:nonroot
ENV KUBEQUIZ_ADDR=0.0.0.0:8080 \
    KUBEQUIZ_DB=/data/kubequiz.db
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 CMD ["/kubequiz", "healthcheck"]
ENTRYPOINT ["/kubequiz"]
CMD ["serve"]
