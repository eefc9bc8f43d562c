# claimcheck - plain Makefile (redis/kilo style). Sources are picked up by
# directory, so adding a file needs no edit here:
#   validate/*.c validate/cel/*.c validate/k8s/*.c rules/*.c
#                                            -> build/libcore.a (the core)
#   lint/*.c (not main.c)                    -> build/liblint.a (linter front end)
#   lint/main.c                              -> build/claimcheck
#   webhook/*.c certs/*.c (not main.c)       -> build/libhook.a (links
#                                               liblint.a: the audit's
#                                               options and renderers)
#   webhook/main.c                           -> build/claimcheck-webhook
#   tests/unit/test_*.c                      -> build/tests/test_* (core)
#   tests/unit/hook_test_*.c                 -> build/tests/hook_test_* (core+hook)
#   docs/man/claimcheck.1, claimcheck-webhook.8 -> make install (PREFIX, DESTDIR)
#   build/claimcheck completion bash|zsh     -> build/completion/ -> make install
# Never add -Ivalidate: validate/limits.h would shadow <limits.h>.

CC      ?= cc
PKG     ?= pkg-config
BUILD   := build
PKGS_CORE := yaml-0.1 libpcre2-8
PKGS_HOOK := libmicrohttpd gnutls openssl libcurl
# cJSON: the reference the JSON parser is tested against (tests/unit/json_oracle.h)
PKGS_TEST := libcjson
APT_PKGS  := libyaml-dev libcjson-dev libpcre2-dev pkg-config libmicrohttpd-dev \
             libgnutls28-dev libssl-dev libcurl4-openssl-dev

# Two stages. pkg-config runs when a Makefile is parsed, so on a machine
# without the -dev packages the first make only installs them (`deps`) and
# then starts a second make, which parses this file again and finds them:
# `make test` works the first time. Goals that need no package (clean, fmt,
# deps) skip the install; so does a make started by the first one.
NODEPS_GOALS := clean fmt deps generate checksrc uninstall release-bump release-check
GOALS := $(or $(MAKECMDGOALS),all)
ifndef CLAIMCHECK_STAGE2
ifneq ($(filter-out $(NODEPS_GOALS),$(GOALS)),)
CLAIMCHECK_STAGE1 := 1
endif
endif

# deps: install what pkg-config cannot find (root), or print the command.
deps:
	@missing=""; for p in $(PKGS_CORE) $(PKGS_HOOK) $(PKGS_TEST); do \
	  $(PKG) --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ] || ! command -v $(PKG) >/dev/null; then \
	  echo "deps: missing:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $(APT_PKGS) >/dev/null || exit 1; \
	  else \
	    echo "run as root: apt-get update && apt-get install -y $(APT_PKGS)"; exit 1; \
	  fi; \
	fi

ifdef CLAIMCHECK_STAGE1
.NOTPARALLEL:
.PHONY: $(GOALS) claimcheck-stage2
$(filter-out deps,$(GOALS)): claimcheck-stage2
	@:
claimcheck-stage2: deps
	@$(MAKE) --no-print-directory CLAIMCHECK_STAGE2=1 $(filter-out deps,$(GOALS))
else
WARN := -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Wall -Wextra \
        -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wwrite-strings -Wformat=2 -Wvla -Wcast-qual -fno-common
ifdef DEVELOPER
WARN += -Werror
endif
OPT ?= -O2 -g
ifdef SANITIZE
SAN := -fsanitize=$(SANITIZE) -fno-sanitize-recover=all -fno-omit-frame-pointer
OPT := -O1 -g
endif

CORE_CFLAGS := $(shell $(PKG) --cflags $(PKGS_CORE) 2>/dev/null)
CORE_LIBS   := $(shell $(PKG) --libs $(PKGS_CORE) 2>/dev/null) -lm
HOOK_CFLAGS := $(shell $(PKG) --cflags $(PKGS_HOOK) 2>/dev/null)
HOOK_LIBS   := $(shell $(PKG) --libs $(PKGS_HOOK) 2>/dev/null) -lpthread
TEST_CFLAGS := $(shell $(PKG) --cflags $(PKGS_TEST) 2>/dev/null)
TEST_LIBS   := $(shell $(PKG) --libs $(PKGS_TEST) 2>/dev/null)

# One version: `git describe --tags --dirty` in a git tree with tags, else
# the VERSION file. Only validate/version.c is compiled with it; it is
# rebuilt when build/version.txt (rewritten only on a change) is newer.
VERSION := $(shell [ -e .git ] && git describe --tags --dirty 2>/dev/null | sed 's/^v//')
ifeq ($(VERSION),)
VERSION := $(shell cat VERSION)
endif
VERSION_STAMP := $(BUILD)/version.txt
$(shell mkdir -p $(BUILD) && [ "$$(cat $(VERSION_STAMP) 2>/dev/null)" = "$(VERSION)" ] || echo "$(VERSION)" >$(VERSION_STAMP))

CFLAGS_ALL = $(WARN) $(OPT) $(SAN) $(CFLAGS) -MMD -MP
LDFLAGS_ALL = $(SAN) $(LDFLAGS)

CORE_SRC := $(wildcard validate/*.c validate/cel/*.c validate/k8s/*.c rules/*.c)
LINT_SRC := $(filter-out lint/main.c,$(wildcard lint/*.c))
HOOK_SRC := $(filter-out webhook/main.c,$(wildcard webhook/*.c certs/*.c))
CORE_OBJ := $(CORE_SRC:%.c=$(BUILD)/obj/%.o)
LINT_OBJ := $(LINT_SRC:%.c=$(BUILD)/obj/%.o)
HOOK_OBJ := $(HOOK_SRC:%.c=$(BUILD)/obj/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
HUNIT_SRC := $(wildcard tests/unit/hook_test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
HUNIT_BIN := $(HUNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# the admission handler without HTTP, for tests/k8s/validation/run.py
ADMIT_BIN := $(BUILD)/tests/hostile_driver
LINT_BIN := $(BUILD)/claimcheck
HOOK_BIN := $(BUILD)/claimcheck-webhook
HAVE_HOOK_MAIN := $(wildcard webhook/main.c)

.PHONY: all deps test run bench bench-check fuzz clean golden-update checksrc fmt generate \
        install uninstall dist deb release-bump release-check
# keep intermediate objects: no rebuilds, and no "rm ..." after the test
# summary (`make test` must end with its "N passed, N failed" line)
.SECONDARY:
all: $(LINT_BIN) $(if $(HAVE_HOOK_MAIN),$(HOOK_BIN)) $(UNIT_BIN) $(HUNIT_BIN) $(ADMIT_BIN)

$(BUILD)/obj/validate/version.o: $(VERSION_STAMP)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(if $(filter validate/version.c,$<),-DCLAIMCHECK_VERSION='"$(VERSION)"') $(CORE_CFLAGS) $(if $(filter webhook/% certs/%,$<),$(HOOK_CFLAGS)) $(if $(filter tests/%,$<),$(TEST_CFLAGS)) -c $< -o $@

$(BUILD)/libcore.a: $(CORE_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/liblint.a: $(LINT_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/libhook.a: $(HOOK_OBJ)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(LINT_BIN): $(BUILD)/obj/lint/main.o $(BUILD)/liblint.a $(BUILD)/libcore.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CORE_LIBS)

$(HOOK_BIN): $(BUILD)/obj/webhook/main.o $(BUILD)/libhook.a $(BUILD)/liblint.a $(BUILD)/libcore.a
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(HOOK_LIBS) $(CORE_LIBS)

$(BUILD)/tests/test_%: $(BUILD)/obj/tests/unit/test_%.o $(BUILD)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(CORE_LIBS) $(TEST_LIBS)

$(BUILD)/tests/hook_test_%: $(BUILD)/obj/tests/unit/hook_test_%.o $(BUILD)/libhook.a $(BUILD)/liblint.a $(BUILD)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(HOOK_LIBS) $(CORE_LIBS)

$(BUILD)/obj/tests/e2e/hostile_driver_admission.o: tests/e2e/hostile_driver.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CORE_CFLAGS) -DHAVE_ADMISSION -c $< -o $@

$(ADMIT_BIN): $(BUILD)/obj/tests/e2e/hostile_driver_admission.o $(BUILD)/libhook.a $(BUILD)/libcore.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(HOOK_LIBS) $(CORE_LIBS)

test: all
	@bash tests/run.sh

run: all
	@bash deploy/run.sh

.PHONY: deploy-manifests
deploy-manifests: all
	@bash deploy/render.sh

bench: all
	@bash tests/bench/run.sh

# bench-check: the short benchmarks, each failing when a ratio measured in
# the same run crosses its guard line (tests/bench/run.sh --check)
bench-check: all
	@bash tests/bench/run.sh --check

# fuzz: the libFuzzer targets of tests/fuzz/ (clang), into $(BUILD)/fuzz;
# run them with tests/fuzz/run.sh SECONDS
fuzz:
	@FUZZ_BUILD=$(BUILD)/fuzz bash tests/fuzz/build.sh

# generate: the C tables of validate/k8s/ from their data files (PyYAML),
# and the HTML report's page (lint/html/page.html) as C
generate:
	@python3 validate/k8s/gen.py
	@python3 lint/html/gen.py

# install/uninstall: the binaries, the man pages and the bash and zsh
# completions (`claimcheck completion bash|zsh`, generated at build time into
# $(BUILD)/completion/, installed where bash-completion and zsh look: the
# completions/ and site-functions/ directories) under PREFIX, staged into
# DESTDIR when it is set (GNU names: `make install DESTDIR=pkg PREFIX=/usr`).
# uninstall removes exactly the files install writes; in a DESTDIR it also
# removes the directories that are left empty (never DESTDIR itself, and
# nothing outside one: /usr/local/share/man is not ours to remove).
PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR  ?= $(PREFIX)/share/zsh/site-functions
INSTALL ?= install
INSTALL_FILES := $(BINDIR)/claimcheck $(BINDIR)/claimcheck-webhook \
                 $(MANDIR)/man1/claimcheck.1 $(MANDIR)/man8/claimcheck-webhook.8 \
                 $(BASHCOMPDIR)/claimcheck $(ZSHCOMPDIR)/_claimcheck
COMPLETIONS := $(BUILD)/completion/bash/claimcheck $(BUILD)/completion/zsh/_claimcheck

$(BUILD)/completion/bash/claimcheck: $(LINT_BIN)
	@mkdir -p $(@D)
	$(LINT_BIN) completion bash >$@.tmp && mv $@.tmp $@
$(BUILD)/completion/zsh/_claimcheck: $(LINT_BIN)
	@mkdir -p $(@D)
	$(LINT_BIN) completion zsh >$@.tmp && mv $@.tmp $@

install: $(LINT_BIN) $(HOOK_BIN) $(COMPLETIONS)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 \
	  $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	$(INSTALL) -m 755 $(LINT_BIN) $(HOOK_BIN) $(DESTDIR)$(BINDIR)/
	$(INSTALL) -m 644 docs/man/claimcheck.1 $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 docs/man/claimcheck-webhook.8 $(DESTDIR)$(MANDIR)/man8/
	$(INSTALL) -m 644 $(BUILD)/completion/bash/claimcheck $(DESTDIR)$(BASHCOMPDIR)/
	$(INSTALL) -m 644 $(BUILD)/completion/zsh/_claimcheck $(DESTDIR)$(ZSHCOMPDIR)/

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALL_FILES))
	@if [ -n "$(DESTDIR)" ] && [ -d "$(DESTDIR)" ]; then \
	  cd "$(DESTDIR)" && for f in $(patsubst /%,%,$(INSTALL_FILES)); do \
	    d=$$(dirname "$$f"); [ -d "$$d" ] && rmdir -p --ignore-fail-on-non-empty "$$d"; \
	  done; true; fi

# dist: $(BUILD)/claimcheck-VERSION.tar.gz, HEAD's tree plus a VERSION file
# (packaging/dist.sh). deb: the Debian packages claimcheck and
# claimcheck-webhook in $(BUILD) (packaging/deb.sh), from binaries built
# again in $(BUILD)/deb with all of Debian's hardening flags (dpkg-buildflags,
# hardening=+all: the webhook faces the network) and
# installed into $(BUILD)/deb/root (the zsh completion where Debian's zsh
# looks for a package's: vendor-completions). Both take the version from the one
# place that knows it: `claimcheck version`.
dist: $(LINT_BIN)
	@bash packaging/dist.sh "$$($(LINT_BIN) version | awk 'NR == 1 { print $$2 }')" $(BUILD)

deb:
	@if command -v dpkg-buildflags >/dev/null; then \
	  export DEB_BUILD_MAINT_OPTIONS=hardening=+all; \
	  cflags="$$(dpkg-buildflags --get CFLAGS) $$(dpkg-buildflags --get CPPFLAGS)"; \
	  ldflags=$$(dpkg-buildflags --get LDFLAGS); \
	else echo "deb: no dpkg-buildflags (dpkg-dev): built without Debian's hardening flags"; fi; \
	rm -rf $(BUILD)/deb/root && \
	$(MAKE) --no-print-directory BUILD=$(BUILD)/deb CFLAGS="$$cflags" LDFLAGS="$$ldflags" \
	  install DESTDIR="$(abspath $(BUILD))/deb/root" PREFIX=/usr \
	  ZSHCOMPDIR=/usr/share/zsh/vendor-completions >/dev/null && \
	epoch=$${SOURCE_DATE_EPOCH:-$$( { [ -e .git ] && git log -1 --format=%ct; } 2>/dev/null \
	  || stat -c %Y VERSION 2>/dev/null || date +%s)} && \
	SOURCE_DATE_EPOCH=$$epoch bash packaging/deb.sh $(BUILD)/deb/root $(BUILD)

# release-bump V=X.Y.Z: VERSION and every reference to a release (pre-commit,
# the Action, the GitLab snippet, Kustomize, README) name X.Y.Z; release-check
# fails on a reference that names another version or an unpublished image
# (packaging/release.py; the release workflow runs it on the tag)
release-bump:
	@[ -n "$(V)" ] || { echo "usage: make release-bump V=X.Y.Z"; exit 2; }
	@python3 packaging/release.py bump $(V)

release-check:
	@python3 packaging/release.py check

golden-update: $(LINT_BIN)
	@bash tests/golden.sh --update $(T)

# checksrc: the house rules the compiler does not check (tests/checksrc.sh);
# fails on a finding
checksrc:
	@bash tests/checksrc.sh

fmt:
	clang-format -i validate/*.[ch] validate/cel/*.[ch] rules/*.[ch] lint/*.[ch] webhook/*.[ch] certs/*.[ch]

clean:
	rm -rf $(BUILD)

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
endif
