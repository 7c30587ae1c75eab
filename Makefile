# geofence: build, test and demo on a Debian or Ubuntu machine that has Swift.
# `make test` and `make demo` install the system libraries they need first.

SWIFT ?= swift
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# pkg-config name : Debian package providing it
PKGS := geos:libgeos-dev yaml-0.1:libyaml-dev sqlite3:libsqlite3-dev libmosquitto:libmosquitto-dev zlib:zlib1g-dev
# command : Debian package providing it (programs the tests run: a private MQTT broker and clients)
CMDS := mosquitto:mosquitto mosquitto_pub:mosquitto-clients mosquitto_sub:mosquitto-clients chromium:chromium

.PHONY: setup build test demo screenshot bench bench-reference format clean

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
# through the commute rules: the day's events, the reminder, the morning and evening commutes;
# then the same day as an HTML report.
demo: setup
	$(SWIFT) build -c release --product geofence
	$$($(SWIFT) build -c release --show-bin-path)/geofence replay Rules/commute.yaml Examples/synthetic-day.ndjson --table
	$$($(SWIFT) build -c release --show-bin-path)/geofence report Rules/commute.yaml Examples/synthetic-day.ndjson -o .build/report.html
	@echo "the day's report: file://$(CURDIR)/.build/report.html"

# The README's screenshot (docs/report.png): the synthetic day's report as the Chromium test renders it.
screenshot: setup
	$(SWIFT) build --build-tests
	mkdir -p docs
	GEOFENCE_REPORT_SCREENSHOT=$(CURDIR)/docs/report.png $(SWIFT) test --skip-build --filter syntheticDayReportRendersAMapTrackAndEventsInChromium

bench: setup
	$(SWIFT) build -c release --product geofence-bench
	$$($(SWIFT) build -c release --show-bin-path)/geofence-bench

# The same monitor workload's geometry computed with shapely (from PyPI, in a virtualenv under
# .build), printed beside geofence's figures from the same session.
bench-reference: setup
	$(SWIFT) build -c release --product geofence-bench
	python3 -m venv .build/venv
	.build/venv/bin/pip install -q shapely numpy
	$$($(SWIFT) build -c release --show-bin-path)/geofence-bench --export .build/bench-workload
	.build/venv/bin/python Benchmarks/reference.py .build/bench-workload
	$$($(SWIFT) build -c release --show-bin-path)/geofence-bench | tail -3

format:
	$(SWIFT) format --in-place --recursive Sources Tests Examples

clean:
	rm -rf .build
