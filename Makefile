# SPDX-License-Identifier: GPL-2.0
# memtrace top-level Makefile.
#
#   make                 memtrace.ko for KVER (or KDIR) and memtrace-read
#   make KVER=6.12.x     the module for another installed kernel
#   make deps            install every Debian package the project needs
#   make check           every test; ends with "N passed, N failed"
#   make demo            boot a guest, load the module, print leak reports
#   make bench           benchmarks (docs/benchmarks.md)
#   make fuzz            the fuzzer on the debug kernel, FUZZ_SECONDS (default 900)
#   make debug-kernel    the KUnit/KASAN/lockdep kernel (cached)
#   make install         install module, reader, man page and udev rule on this
#                        host (DESTDIR: into a staging root instead)
#   make dkms-install    build and install the module through DKMS, for every
#                        kernel with headers, signed for Secure Boot (docs/install.md)
#
# MEMTRACE_WERROR=1 makes warnings errors (module and reader); make check
# sets it.  Without it (make, make install, DKMS) warnings are printed only.

# The kernel to build against: the running kernel's build dir if there is
# one, else the newest installed Debian headers (not a PREEMPT_RT flavour's,
# which make deps installs beside them for the tests).
KVER ?= $(shell if [ -d /lib/modules/$$(uname -r)/build ]; then uname -r; \
	else ls -d /lib/modules/*/build 2>/dev/null | grep -v -- '-rt-' | sort -V | tail -n1 | cut -d/ -f4; fi)
KDIR ?= /lib/modules/$(KVER)/build
BUILD ?= $(CURDIR)/build
MODOUT ?= $(BUILD)/kmod-$(notdir $(patsubst %/,%,$(KVER)))
USEROUT ?= $(BUILD)/user
PREFIX ?= /usr/local
UDEVRULESDIR ?= /etc/udev/rules.d
FUZZ_SECONDS ?= 900

.PHONY: all module userspace deps check demo bench debug-kernel install \
	uninstall dkms-install dkms-uninstall fuzz clean unit-test

all: module userspace

module:
	@test -d "$(KDIR)" || { echo "no kernel build dir $(KDIR): make deps, or set KVER/KDIR" >&2; exit 1; }
	scripts/build-module.sh "$(KDIR)" "$(MODOUT)"

userspace:
	$(MAKE) -C userspace O=$(USEROUT)

unit-test:
	$(MAKE) -C userspace O=$(USEROUT) test

deps:
	scripts/deps.sh

debug-kernel:
	scripts/debug-kernel.sh

check: deps
	tests/check.sh

demo: deps
	scripts/demo.sh

bench: deps
	scripts/bench.sh

fuzz: deps
	CHECK_STAGES="build debug fuzz" FUZZ_SECONDS=$(FUZZ_SECONDS) tests/check.sh

# The device's group and mode come from the udev rule; the group is made
# (and udev told) only on a real install, not into a DESTDIR.
install: all
	install -D -m 0644 $(MODOUT)/memtrace.ko $(DESTDIR)/lib/modules/$(KVER)/updates/memtrace.ko
	depmod -b $(or $(DESTDIR),/) -a $(KVER)
	install -D -m 0755 $(USEROUT)/memtrace-read $(DESTDIR)$(PREFIX)/bin/memtrace-read
	install -D -m 0644 docs/memtrace-read.8 $(DESTDIR)$(PREFIX)/share/man/man8/memtrace-read.8
	install -D -m 0644 udev/60-memtrace.rules $(DESTDIR)$(UDEVRULESDIR)/60-memtrace.rules
	@if [ -z "$(DESTDIR)" ]; then \
		getent group memtrace >/dev/null || groupadd --system memtrace; \
		if command -v udevadm >/dev/null && [ -d /run/udev ]; then \
			udevadm control --reload && udevadm trigger --subsystem-match=misc --sysname-match=memtrace; \
		fi; \
	fi

uninstall:
	rm -f $(DESTDIR)/lib/modules/$(KVER)/updates/memtrace.ko $(DESTDIR)$(PREFIX)/bin/memtrace-read \
	      $(DESTDIR)$(PREFIX)/share/man/man8/memtrace-read.8 \
	      $(DESTDIR)$(UDEVRULESDIR)/60-memtrace.rules
	depmod -b $(or $(DESTDIR),/) -a $(KVER)

dkms-install:
	dkms/dkms-install.sh

dkms-uninstall:
	dkms/dkms-install.sh --remove

clean:
	rm -rf $(BUILD)
