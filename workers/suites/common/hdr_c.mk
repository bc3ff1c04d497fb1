# HdrHistogram_c for the suites' C and C++ programs.
# Debian does not package it; crates.io's hdrhistogram-c crate bundles its C sources, so the
# pinned crate is fetched once into $(BUILD_DIR)/hdr, checked with sha256sum before it is
# extracted, and built into a static library.
# A crate already there with the right checksum is reused; a corrupt one is fetched again.
#
# One file for every suite that builds with it: a suite links it into its folder
# (hdr_c.mk -> this file), lists the link in its [build] sources, so the suite's version hashes
# this content (and the build's snapshot of the suite keeps it), and includes the link.
#
# Provides: HDR_LIB (a prerequisite: it also installs the headers), HDR_CPPFLAGS, HDR_LDLIBS.

HDR_VERSION := 0.1.17
HDR_SHA256 := 9238ddbdf88f3508d468047fc772ec9407a3e647a065b39351ecc77c2c42917e
HDR_URL := https://static.crates.io/crates/hdrhistogram-c/hdrhistogram-c-$(HDR_VERSION).crate

HDR_DIR := $(BUILD_DIR)/hdr
HDR_CRATE := $(HDR_DIR)/hdrhistogram-c-$(HDR_VERSION).crate
HDR_LIB := $(HDR_DIR)/lib/libhdr_histogram.a
HDR_CPPFLAGS := -I$(HDR_DIR)/include
HDR_LDLIBS := $(HDR_LIB) -lz -lm

# Only what recording and the V2 log encoding need (not the phaser/recorder, which use threads).
HDR_SOURCES := hdr_histogram.c hdr_histogram_log.c hdr_encoding.c
HDR_HEADERS := hdr_histogram.h hdr_histogram_log.h hdr_time.h
HDR_CFLAGS := -O2 -fPIC

# The library depends on this file, so a new pin rebuilds it. The build works in a private
# temporary directory and renames its results into place, so the C and C++ builds may run at
# the same time (make -j) without seeing a half-written file.
$(HDR_LIB): $(lastword $(MAKEFILE_LIST))
	@set -e; mkdir -p $(HDR_DIR)/include $(HDR_DIR)/lib; \
	tmp=$$(mktemp -d "$(HDR_DIR)/build.XXXXXX"); trap 'rm -rf "$$tmp"' EXIT; \
	if ! { [ -f $(HDR_CRATE) ] && echo "$(HDR_SHA256)  $(HDR_CRATE)" | sha256sum -c --status; }; then \
		echo "fetching HdrHistogram_c $(HDR_VERSION) from crates.io" >&2; \
		curl -fsSL --retry 3 -o "$$tmp/crate" "$(HDR_URL)"; \
		echo "$(HDR_SHA256)  $$tmp/crate" | sha256sum -c --quiet; \
		mv "$$tmp/crate" $(HDR_CRATE); \
	fi; \
	tar -xzf $(HDR_CRATE) -C "$$tmp"; \
	src="$$tmp/hdrhistogram-c-$(HDR_VERSION)/HdrHistogram_c/src"; \
	for f in $(HDR_SOURCES); do $(CC) $(HDR_CFLAGS) -c "$$src/$$f" -o "$$tmp/$${f%.c}.o"; done; \
	ar rcs "$$tmp/libhdr_histogram.a" $(patsubst %.c,"$$tmp/%.o",$(HDR_SOURCES)); \
	for h in $(HDR_HEADERS); do cp "$$src/$$h" "$$tmp/$$h.tmp"; mv "$$tmp/$$h.tmp" $(HDR_DIR)/include/$$h; done; \
	mv "$$tmp/libhdr_histogram.a" $@
