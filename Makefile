# geofence: build, test and demo on a Debian or Ubuntu machine that has Swift.
# `make test` and `make demo` install the system libraries they need first.

SWIFT ?= swift
# Release builds link the Swift runtime and Foundation statically: the binary then needs only
# Debian's C libraries (copy it to a box without a Swift toolchain), and starts about 10 ms sooner
# (fewer shared objects to bind symbols in).
RELEASE := $(SWIFT) build -c release -Xswiftc -static-stdlib
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# pkg-config name : Debian package providing it
PKGS := geos:libgeos-dev yaml-0.1:libyaml-dev sqlite3:libsqlite3-dev libmosquitto:libmosquitto-dev zlib:zlib1g-dev \
	libnats:libnats-dev libmicrohttpd:libmicrohttpd-dev libcurl:libcurl4-openssl-dev libsodium:libsodium-dev \
	libgps:libgps-dev
# command : Debian package providing it (programs the tests run: a private MQTT broker and clients,
# Chromium for the report's rendering tests, a NATS JetStream cluster, systemd-analyze to verify the
# units in Examples/systemd, curl against the HTTP receiver, gpsd fed by gpsfake)
CMDS := mosquitto:mosquitto mosquitto_pub:mosquitto-clients mosquitto_sub:mosquitto-clients chromium:chromium \
	nats-server:nats-server systemd-analyze:systemd curl:curl gpsd:gpsd gpsfake:gpsd-clients

.PHONY: setup build test demo screenshot bench bench-reference staypoints format clean fuzz fuzz-build sanitizers

setup:
	@missing=""; \
	for pair in $(PKGS); do \
	  pc=$${pair%%:*}; deb=$${pair##*:}; \
	  pkg-config --exists $$pc 2>/dev/null || missing="$$missing $$deb"; \
	done; \
	for pair in $(CMDS); do \
	  cmd=$${pair%%:*}; deb=$${pair##*:}; \
	  PATH="$$PATH:/usr/sbin:/usr/local/sbin" command -v $$cmd >/dev/null || \
	    case " $$missing " in *" $$deb "*) ;; *) missing="$$missing $$deb";; esac; \
	done; \
	command -v pkg-config >/dev/null || missing="$$missing pkg-config"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

build: setup
	$(SWIFT) build

test: setup
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

# The synthetic day (Examples/synthetic-day.ndjson, made by `geofence simulate day`) replayed
# through the commute rules: the day's events, the reminder, the commutes (the evening one stopped at the gym);
# then the same day as an HTML report.
demo: setup
	$(RELEASE) --product geofence
	$$($(RELEASE) --show-bin-path)/geofence replay Rules/commute.yaml Examples/synthetic-day.ndjson --table
	$$($(RELEASE) --show-bin-path)/geofence report Rules/commute.yaml Examples/synthetic-day.ndjson -o .build/report.html
	@echo "the day's report: file://$(CURDIR)/.build/report.html"

# The README's screenshot (docs/report.png): the synthetic day's report as the Chromium test renders it.
screenshot: setup
	$(SWIFT) build --build-tests
	mkdir -p docs
	GEOFENCE_REPORT_SCREENSHOT=$(CURDIR)/docs/report.png $(SWIFT) test --skip-build --filter syntheticDayReportRendersAMapTrackAndEventsInChromium

# The micro-benchmarks, then one table of whole-command figures beside the references run in the
# same session (shapely, trackintel: from PyPI, in a virtualenv under .build): Benchmarks/bench.py.
BENCH_DIR := .build/bench-workload
bench: setup
	$(RELEASE) --product geofence
	$(RELEASE) --product geofence-bench
	[ -x .build/venv/bin/python ] || python3 -m venv .build/venv
	.build/venv/bin/python -c 'import shapely, trackintel' 2>/dev/null || \
	  .build/venv/bin/pip install -q shapely numpy trackintel
	[ -f $(BENCH_DIR)/stays.csv ] || \
	  $$($(RELEASE) --show-bin-path)/geofence-bench --export $(BENCH_DIR) --workloads
	$$($(RELEASE) --show-bin-path)/geofence-bench
	.build/venv/bin/python Benchmarks/bench.py $$($(RELEASE) --show-bin-path) $(BENCH_DIR)

# `geofence stays` against trackintel's staypoints (200 m, 20 min, 12 h gaps) on real recordings:
# the posmo trace in the test data and, with GEOLIFE=DIR, GeoLife users (not shipped here;
# trackintel's test data has eleven in tests/data/geolife_long_10_MB). Benchmarks/staypoints.py.
staypoints: setup
	$(RELEASE) --product geofence
	[ -x .build/venv/bin/python ] || python3 -m venv .build/venv
	.build/venv/bin/python -c 'import trackintel' 2>/dev/null || .build/venv/bin/pip install -q trackintel
	.build/venv/bin/python Benchmarks/staypoints.py $$($(RELEASE) --show-bin-path)/geofence \
	  $(if $(GEOLIFE),--geolife $(GEOLIFE)) --csv Tests/GeofenceInputTests/Data/posmo_trajectory.csv

# The same monitor workload's geometry computed with shapely (from PyPI, in a virtualenv under
# .build), printed beside geofence's figures from the same session.
bench-reference: setup
	$(RELEASE) --product geofence-bench
	python3 -m venv .build/venv
	.build/venv/bin/pip install -q shapely numpy
	$$($(RELEASE) --show-bin-path)/geofence-bench --export .build/bench-workload
	.build/venv/bin/python Benchmarks/reference.py .build/bench-workload
	$$($(RELEASE) --show-bin-path)/geofence-bench | tail -3

# libFuzzer targets (Fuzz/TARGET.swift): the libraries are built once with coverage and
# AddressSanitizer, each target linked against their objects. `make fuzz` first replays every kept
# crash (Fuzz/crashes/TARGET, each also a regression test in the suite), then fuzzes each target
# for FUZZ_SECONDS from the committed seeds (Fuzz/corpus/TARGET; new finds go to .build/fuzz).
# Targets: gpx, lines (NDJSON, OwnTracks, .rec, CSV), documents (JSON documents, KML, NMEA,
# GeoLife, CSV), mqtt and http (the messages `run --mqtt` and `run --http` receive), rules.
# Leak detection is off: Foundation's error paths leak a few bytes per bad input.
FUZZ_SECONDS ?= 60
FUZZ_TARGETS := gpx lines documents mqtt http rules
FUZZ_BUILD := .build/fuzz
FUZZ_C_MODULES := CSpawn CGPS CPrefetch CCurl CMicroHTTPD CLibraryLoader
FUZZ_FLAGS := -sanitize=fuzzer,address -parse-as-library -I $(FUZZ_BUILD)/debug/Modules \
  $(foreach m,CGEOS CYAML CSQLite CMosquitto CSodium CNATS,-I Sources/$(m)) \
  $(foreach m,$(FUZZ_C_MODULES),-I Sources/$(m)/include -Xcc -fmodule-map-file=$(FUZZ_BUILD)/debug/$(m).build/module.modulemap)
FUZZ_OBJECTS := $(foreach m,Geofence GeofenceInput GeofenceRules GeofenceRuntime $(FUZZ_C_MODULES),$(FUZZ_BUILD)/debug/$(m).build/*.o) \
  -lgeos_c -lyaml -lsqlite3 -lmosquitto -lsodium -lnats -lm

fuzz-build: setup
	$(SWIFT) build --build-path $(FUZZ_BUILD) -Xswiftc -sanitize=fuzzer,address --target GeofenceRuntime
	# A C target that only other C targets depend on is not compiled for a library target alone.
	$(SWIFT) build --build-path $(FUZZ_BUILD) -Xswiftc -sanitize=fuzzer,address --target CLibraryLoader
	for t in $(FUZZ_TARGETS); do \
	  swiftc $(FUZZ_FLAGS) -module-name fuzz_$$t Fuzz/$$t.swift $(FUZZ_OBJECTS) \
	    -o $(FUZZ_BUILD)/fuzz-$$t 2>&1 | grep -v "Cannot export local symbol" || true; \
	  test -x $(FUZZ_BUILD)/fuzz-$$t || exit 1; \
	done

fuzz: fuzz-build
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p $(FUZZ_BUILD)/corpus-$$t $(FUZZ_BUILD)/artifacts-$$t; \
	  if ls Fuzz/crashes/$$t/* >/dev/null 2>&1; then \
	    $(FUZZ_BUILD)/fuzz-$$t -detect_leaks=0 Fuzz/crashes/$$t/* || exit 1; fi; \
	  $(FUZZ_BUILD)/fuzz-$$t -detect_leaks=0 -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
	    -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/artifacts-$$t/ $(FUZZ_BUILD)/corpus-$$t Fuzz/corpus/$$t || exit 1; \
	done

# The suite under AddressSanitizer, then the runtime and end-to-end tests under ThreadSanitizer,
# each in its own build folder so the normal build is not rebuilt. Leak checking is off: `run`
# exits with its input threads' buffers still referenced (reported as leaks at exit, status 1).
# The report's million-fix size test is left out of the ASan pass: it is one thread building a
# report from generated fixes (no runtime concurrency, no C call the rest of the suite does not
# make), it takes 50-150 s in a debug build and was still running after 10 minutes under ASan on a
# loaded 2-core machine; `make test` runs it with its assertion unchanged.
# Swift's crash backtracer is off in these runs (geofence children inherit it): in an instrumented
# process it copies the crashed stack with memcpy (ASan reports a stack-buffer-underflow) or clones
# from the signal handler (a failed TSan check), and the test that crashes geofence on purpose then
# waited for a child that never ended. The sanitizers print their own stacks.
ASAN_SKIP := aYearOfAMillionFixesMakesAFileUnder20MB
sanitizers: setup
	$(SWIFT) build --build-tests --build-path .build/asan -Xswiftc -sanitize=address
	SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 $(SWIFT) test --skip-build --build-path .build/asan --skip '$(ASAN_SKIP)'
	$(SWIFT) build --build-tests --build-path .build/tsan -Xswiftc -sanitize=thread
	SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build --build-path .build/tsan --filter 'GeofenceRuntimeTests|EndToEndTests'

format:
	$(SWIFT) format --in-place --recursive Sources Tests Examples

clean:
	rm -rf .build
