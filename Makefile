# The two commands a fresh machine needs are `make demo` and `make test`
# (see README.md). Everything they need — building kube-apiserver and etcd
# into the user cache on first use — happens inside them.

GO ?= go
FUZZTIME ?= 5s
TEST_TIMEOUT ?= 60m
COMPAT_VERSIONS ?= 1.34 1.35 1.36 1.37

.PHONY: bench-failover test-kubectl test demo demo-intro dev controlplane unit fuzz vet bench bench-priority test-faults soak compat test-portforward bench-streams test-sharding bench-sharding test-loaded

## test: vet, build the control plane if needed, run every test with -race
## (unit and integration; -count=1: a cached pass never stands in for a
## run), run each fuzz target briefly, vet and unit-test
## the bench/ module (its benchmarks run with make bench).
test: vet controlplane
	$(GO) test -race -count=1 -timeout $(TEST_TIMEOUT) ./...
	FUZZTIME=$(FUZZTIME) bash hack/fuzz.sh
	cd bench && $(GO) vet ./... && $(GO) test -race -count=1 ./...

## test-loaded: make test while CPU hogs (nice 19) keep the load average at
## 8 or more (LOAD_TARGET), printing load samples and the result; see
## hack/test-loaded.sh for its knobs. About 30 minutes on 2 cores.
test-loaded:
	LOAD_TARGET=$(LOAD_TARGET) bash hack/test-loaded.sh $(MAKE) test

## demo: start a local control plane, run the demo against it, stop. With
## DEMO_KUBECONFIG=path it runs against that cluster instead (kind,
## minikube, ...), in a namespace of its own that it deletes at the end.
ifdef DEMO_KUBECONFIG
demo:
	$(GO) run ./examples/demo -kubeconfig "$(DEMO_KUBECONFIG)"
else
demo: demo-intro controlplane
	$(GO) run ./examples/demo
endif

demo-intro:
	@echo "make demo starts etcd + kube-apiserver on loopback, runs the labeler controller"
	@echo "(examples/labeler) against them, creates three Deployments, shows them labeled"
	@echo "and stops. The first run builds the control plane (about 10 minutes on 2 idle cores);"
	@echo "meanwhile, read README.md and examples/labeler/labeler/labeler.go."
	@echo "compiling kubego's command-line tool..."

## dev: a local control plane until Ctrl-C (prints the KUBECONFIG to use).
dev: controlplane
	$(GO) run ./cmd/kubego dev

## controlplane: build (first time: several minutes) or find the cached
## kube-apiserver and etcd binaries.
controlplane:
	$(GO) run ./cmd/kubego controlplane build

## unit: the fast tests only (no control plane).
unit:
	$(GO) test -short -race ./...

vet:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }

fuzz:
	FUZZTIME=$(FUZZTIME) bash hack/fuzz.sh

## bench: the side-by-side performance suite against client-go v0.37.2
## (bench/, a separate module). Knobs: BENCH_RUNS (3), BENCH_PODS (20000),
## BENCH_WQ_KEYS (1000000), BENCH_ONLY (comma-separated benchmarks),
## BENCH_SHAPE_N (5000 objects per shape; the unique Pods are BENCH_PODS),
## BENCH_SCALE (Pod counts of the scale curve, 2000,20000; add 100000 for
## the 100k point: minutes of population and ~300 MB in etcd),
## PROFILE=1 (CPU and heap profiles of the kubego side into
## bench/results/profiles/). Writes bench/results/latest.{json,md,svg} and
## scale.svg.
bench: controlplane
	cd bench && BENCH_RUNS=$(BENCH_RUNS) BENCH_PODS=$(BENCH_PODS) BENCH_WQ_KEYS=$(BENCH_WQ_KEYS) BENCH_ONLY=$(BENCH_ONLY) BENCH_SHAPE_N=$(BENCH_SHAPE_N) BENCH_SCALE=$(BENCH_SCALE) PROFILE=$(PROFILE) $(GO) run ./cmd/runner

## bench-priority: controller.Options.PriorityQueue measured (in-memory
## backend, 20,000 objects): the latency of one change made after a
## restart, with the default queue and with the option.
bench-priority:
	$(GO) test -run '^$$' -bench BenchmarkLiveChangeAfterRestart -benchtime 5x ./controller/

## test-faults: the fault-injection suite with its long scenarios and known
## failures (see RELIABILITY.md); make test runs the default set. Then the
## hot object against the in-process fake without -race, which reports its
## rate (1,000 updates/s and more with about one free core).
test-faults: controlplane
	KUBEGO_FAULTS=long $(GO) test -race -count=1 -timeout 45m -v ./faults/
	KUBEGO_FAULTS=long $(GO) test -count=1 -v -run '^TestControllerHotObjectInMemory$$' ./faults/

## soak: the fault scenarios in random order for SOAK (default 1h) with a
## writer, an informer and a controller alive throughout; heap, goroutines
## and sockets sampled every 10 s must not grow (see RELIABILITY.md). Not
## part of make test. SOAK=10m for a shorter run. Heap profiles after the
## warm-up and at the end go to faults/soak-profiles/. The informers share
## values between cached objects, as by default; SOAK_SHARING=off runs
## them without (see RELIABILITY.md, "Whose heap grew").
SOAK ?= 1h
SOAK_SHARING ?= on
soak: controlplane
	KUBEGO_SOAK=$(SOAK) KUBEGO_SOAK_SHARING=$(SOAK_SHARING) KUBEGO_SOAK_PROFILES=$(CURDIR)/faults/soak-profiles $(GO) test -count=1 -timeout 0 -run '^TestSoak$$' -v ./faults/

## compat: the real-server tests against every kube-apiserver version testenv
## can build (COMPAT_VERSIONS="1.34 1.35 1.36 1.37"); writes compat/results-<versions>.md.
## Each version is built once (minutes); not part of make test.
compat:
	GO=$(GO) COMPAT_VERSIONS="$(COMPAT_VERSIONS)" bash hack/compat.sh

## test-portforward: 100 MiB each way through one port-forward connection
## (kube-apiserver and the stand-in kubelet), integrity checked; make test
## sends 16 MiB.
test-portforward: controlplane
	KUBEGO_PORTFORWARD_MIB=100 $(GO) test -count=1 -v -run 'TestMegabytesThroughOneConnection' ./portforward/

## test-kubectl: kubectl's common commands (get, create, apply, apply
## --server-side, label, patch, scale, wait, delete, explain, api-resources,
## auth can-i) against the fake and a real kube-apiserver, outputs compared.
## Needs kubectl on PATH.
test-kubectl: controlplane
	KUBEGO_KUBECTL=1 $(GO) test -count=1 -v -run 'TestKubectlSameOnBothServers' ./fake/

## bench-streams: port-forward throughput (kubego and, if installed, kubectl
## port-forward on the same stand-in kubelet) and exec latency.
bench-streams: controlplane
	$(GO) test -count=1 -run '^$$' -bench 'Throughput' -benchtime 3s ./portforward/
	$(GO) test -count=1 -run '^$$' -bench 'RoundTrip' -benchtime 2s ./podexec/

## test-sharding: the sharding ring test at full scale (3 replicas, then 4,
## then 2, on 3,000 ConfigMaps; make test runs it on 1,000) and the
## start-up and restart tests on 3,000 (make test: 300).
test-sharding: controlplane
	KUBEGO_SHARDING=long $(GO) test -race -count=1 -timeout 20m -v -run 'TestIntegration' ./sharding/

## bench-failover: two replicas of one controller (separate processes,
## default lease durations) on BENCH_FAILOVER_N ConfigMaps (20000;
## comma-separated for several sizes, e.g. 20000,100000): the time from the
## leader's SIGKILL and from its SIGTERM to the successor's election and
## first reconcile, warm and cold standby, kubego and controller-runtime
## v0.25 side by side, and the standby's memory. Writes
## bench/results/failover.{json,md} and the table of docs/failover.md.
## Not part of make test.
BENCH_FAILOVER_N ?= 20000
bench-failover: controlplane
	cd bench && BENCH_FAILOVER_N=$(BENCH_FAILOVER_N) $(GO) run ./cmd/failover

## bench-sharding: on 30,000 ConfigMaps (BENCH_SHARDING_OBJECTS), the live
## heap of each replica's cache with 1, 2 and 3 replicas and of the leading
## sharder's, three replicas starting together on the labelled objects
## (time, reconciles, objects moved), the time to reassign and reconcile a
## cut-off replica's objects, and the overlap check. Not part of make test.
BENCH_SHARDING_OBJECTS ?= 30000
bench-sharding: controlplane
	KUBEGO_SHARDING_BENCH=1 KUBEGO_SHARDING_BENCH_OBJECTS=$(BENCH_SHARDING_OBJECTS) $(GO) test -count=1 -timeout 50m -v -run '^TestShardingBench$$' ./sharding/
