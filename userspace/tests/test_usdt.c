// SPDX-License-Identifier: GPL-2.0
/*
 * usdt.c: argument specs compiled as the module decodes them, probes
 * found in a program built here with <sys/sdt.h>, and checked against
 * readelf -n (binutils, an independent reader of the same notes): the
 * same addresses and specs, and file offsets that hold the probe's nop.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../cli.h"
#include "../usdt.h"
#include "harness.h"

static bool arg_is(const char *spec, uint8_t kind, int8_t size, uint8_t reg, int64_t value)
{
	struct memtrace_usdt_arg a;
	struct mt_err err;

	if (usdt_parse_arg(spec, &a, &err)) {
		diag("%s: %s", spec, err.msg);
		return false;
	}
	return a.kind == kind && a.size == size && a.reg == reg && a.value == value;
}

static void test_args(void)
{
	struct memtrace_usdt_arg a, args[MEMTRACE_USDT_MAX_ARGS];
	uint32_t unsup;
	struct mt_err err;

	check(arg_is("-4@%edi", MEMTRACE_USDT_ARG_REG, -4, MEMTRACE_USDT_REG_RDI, 0) &&
	      arg_is("8@%rax", MEMTRACE_USDT_ARG_REG, 8, MEMTRACE_USDT_REG_RAX, 0) &&
	      arg_is("-2@%cx", MEMTRACE_USDT_ARG_REG, -2, MEMTRACE_USDT_REG_RCX, 0) &&
	      arg_is("1@%sil", MEMTRACE_USDT_ARG_REG, 1, MEMTRACE_USDT_REG_RSI, 0) &&
	      arg_is("4@%r9d", MEMTRACE_USDT_ARG_REG, 4, MEMTRACE_USDT_REG_R8 + 1, 0) &&
	      arg_is("8@%r15", MEMTRACE_USDT_ARG_REG, 8, MEMTRACE_USDT_REG_R15, 0) &&
	      arg_is("-1@%r12b", MEMTRACE_USDT_ARG_REG, -1, MEMTRACE_USDT_REG_R8 + 4, 0),
	      "usdt args: registers of every width, r8-r15 included");
	check(arg_is("8@-16(%rbp)", MEMTRACE_USDT_ARG_MEM, 8, MEMTRACE_USDT_REG_RBP, -16) &&
	      arg_is("-4@(%rax)", MEMTRACE_USDT_ARG_MEM, -4, MEMTRACE_USDT_REG_RAX, 0) &&
	      arg_is("2@0x18(%rsp)", MEMTRACE_USDT_ARG_MEM, 2, MEMTRACE_USDT_REG_RSP, 0x18) &&
	      arg_is("8@24(%r13)", MEMTRACE_USDT_ARG_MEM, 8, MEMTRACE_USDT_REG_R8 + 5, 24),
	      "usdt args: memory at a register plus a displacement");
	check(arg_is("-8@$5", MEMTRACE_USDT_ARG_CONST, -8, 0, 5) &&
	      arg_is("-4@$-1", MEMTRACE_USDT_ARG_CONST, -4, 0, -1) &&
	      arg_is("8@$0x10", MEMTRACE_USDT_ARG_CONST, 8, 0, 16) &&
	      arg_is("%rdi", MEMTRACE_USDT_ARG_REG, 8, MEMTRACE_USDT_REG_RDI, 0),
	      "usdt args: constants, and an old note's operand without a size");
	check(usdt_parse_arg("8@var(%rip)", &a, &err) == -ENOTSUP &&
	      usdt_parse_arg("4@(%rax,%rbx,8)", &a, &err) == -ENOTSUP &&
	      usdt_parse_arg("1@%ah", &a, &err) == -ENOTSUP &&
	      usdt_parse_arg("8@%fs:0x28", &a, &err) == -ENOTSUP &&
	      usdt_parse_arg("8@$sym", &a, &err) == -ENOTSUP &&
	      a.kind == MEMTRACE_USDT_ARG_CONST && a.size == 8,
	      "usdt args: a symbol, an index, a high byte or a segment: not decoded, said");
	check(usdt_parse_arg("3@%rax", &a, &err) == -EINVAL &&
	      usdt_parse_arg("4@%foo", &a, &err) == -EINVAL &&
	      usdt_parse_arg("4@$", &a, &err) == -EINVAL &&
	      usdt_parse_arg("4@-8(%rbp", &a, &err) == -EINVAL && strstr(err.msg, "-8(%rbp"),
	      "usdt args: a bad size, register or operand is an error naming the spec");
	check(usdt_parse_args(" -4@%edi  8@-8(%rbp) -4@$42 8@x(%rip)", args, &unsup, &err) == 4 &&
	      unsup == 1U << 3 && args[1].kind == MEMTRACE_USDT_ARG_MEM && args[2].value == 42,
	      "usdt args: a note's list, the undecoded ones marked");
	check(usdt_parse_args("1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1 1@$1",
			      args, &unsup, &err) == -EINVAL,
	      "usdt args: more than 12 refused");
	check(usdt_parse_args("", args, &unsup, &err) == 0, "usdt args: none");
}

static void test_probe_spec(void)
{
	char path[256], prov[USDT_NAME_LEN], name[USDT_NAME_LEN];
	struct mt_err err;

	check(!usdt_parse_probe("/usr/bin/prog:prov:name", path, sizeof(path), prov, name, &err) &&
	      !strcmp(path, "/usr/bin/prog") && !strcmp(prov, "prov") && !strcmp(name, "name"),
	      "usdt: BINARY:PROVIDER:NAME");
	check(!usdt_parse_probe("/a:b/prog:p:n", path, sizeof(path), prov, name, &err) &&
	      !strcmp(path, "/a:b/prog") && !strcmp(prov, "p") && !strcmp(name, "n"),
	      "usdt: a colon in BINARY");
	check(usdt_parse_probe("prog:name", path, sizeof(path), prov, name, &err) == -EINVAL &&
	      usdt_parse_probe("prog:p:", path, sizeof(path), prov, name, &err) == -EINVAL &&
	      usdt_parse_probe(":p:n", path, sizeof(path), prov, name, &err) == -EINVAL &&
	      usdt_parse_probe("prog::n", path, sizeof(path), prov, name, &err) == -EINVAL &&
	      strstr(err.msg, "BINARY:PROVIDER:NAME"),
	      "usdt: a spec without all three parts is refused");
}

/* readelf -n's Location, Semaphore and Arguments of the index-th note of prov:name. */
static bool readelf_note(const char *bin, const char *prov, const char *name, int index,
			 uint64_t *pc, uint64_t *sem, char *args, size_t len)
{
	char cmd[1024], line[512];
	bool want = false, found = false;
	int seen = 0;
	FILE *f;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s' 2>/dev/null", bin);
	f = popen(cmd, "r");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *v;

		if ((v = strstr(line, "Provider: ")))
			want = !strncmp(v + 10, prov, strlen(prov)) && v[10 + strlen(prov)] == '\n';
		else if (want && (v = strstr(line, "Name: ")))
			want = !strncmp(v + 6, name, strlen(name)) && v[6 + strlen(name)] == '\n' &&
			       seen++ == index;
		else if (want && (v = strstr(line, "Location: ")))
			found = sscanf(v, "Location: %" SCNx64 ", Base: %*x, Semaphore: %" SCNx64,
				       pc, sem) == 2;
		else if (want && found && (v = strstr(line, "Arguments: "))) {
			snprintf(args, len, "%s", v + 11);
			args[strcspn(args, "\n")] = '\0';
			want = false;
		}
	}
	pclose(f);
	return found;
}

/* The byte at a file offset. */
static int byte_at(const char *path, uint64_t off)
{
	FILE *f = fopen(path, "rb");
	int c = EOF;

	if (f && !fseek(f, (long)off, SEEK_SET))
		c = fgetc(f);
	if (f)
		fclose(f);
	return c;
}

static void test_notes(void)
{
	struct usdt_site sites[4];
	char dir[64], bin[128], args[256];
	const char *src = fixture_path("usdt-fixture.c");
	uint64_t pc, sem;
	struct mt_err err;
	int n;

	if (!run_quiet("command -v cc >/dev/null && command -v readelf >/dev/null && "
		 "printf '#include <sys/sdt.h>\\n' | cc -E -x c - >/dev/null 2>&1")) {
		check(true, "usdt notes # SKIP no cc, readelf or <sys/sdt.h> (systemtap-sdt-dev)");
		return;
	}
	if (!check(make_tmpdir(dir, sizeof(dir), "usdt"), "usdt: a temporary directory"))
		return;
	snprintf(bin, sizeof(bin), "%s/fixture", dir);
	if (!check(run_quiet("cc -O2 -c -DWITH_SEMAPHORE -o '%s/g.o' '%s' && cc -O2 -o '%s' '%s' '%s/g.o'",
		       dir, src, bin, src, dir), "usdt: the fixture builds")) {
		remove_tree(dir);
		return;
	}
	n = usdt_find(bin, "fixture", "plain", sites, 4, &err);
	check(n == 2, "usdt notes: both sites of fixture:plain (%d%s%s)", n, n < 0 ? ": " : "",
	      n < 0 ? err.msg : "");
	for (int i = 0; i < n && i < 2; i++) {
		bool ok = readelf_note(bin, "fixture", "plain", i, &pc, &sem, args, sizeof(args));

		check(ok && sites[i].pc == pc && !sem && !sites[i].semaphore &&
		      !sites[i].ref_ctr_offset && !strcmp(sites[i].specs, args) &&
		      sites[i].nr_args == 4,
		      "usdt notes: site %d as readelf -n reads it (0x%" PRIx64 " '%s')", i, pc, args);
		/* <sys/sdt.h> places a nop at the probe: the offset must hold it. */
		check(byte_at(bin, sites[i].offset) == 0x90,
		      "usdt notes: site %d's file offset holds the probe's nop", i);
	}
	n = usdt_find(bin, "fixture", "gated", sites, 4, &err);
	check(n == 1 && readelf_note(bin, "fixture", "gated", 0, &pc, &sem, args, sizeof(args)) &&
	      sites[0].pc == pc && sites[0].semaphore == sem && sem &&
	      sites[0].ref_ctr_offset && byte_at(bin, sites[0].ref_ctr_offset) == 0 &&
	      byte_at(bin, sites[0].offset) == 0x90,
	      "usdt notes: the semaphore's address, and a file offset for it");
	n = usdt_find(bin, "fixture", "nosuch", sites, 4, &err);
	check(n == -ENOENT && strstr(err.msg, "fixture:plain") && strstr(err.msg, "fixture:gated"),
	      "usdt notes: a probe not there is an error listing those there");
	n = usdt_find(bin, "fixture", "plain", sites, 1, &err);
	check(n == -ENOSPC, "usdt notes: more sites than room is an error");
	n = usdt_find("/proc/self/exe", "fixture", "plain", sites, 4, &err);
	check(n == -ENODATA && strstr(err.msg, "no USDT probes"),
	      "usdt notes: an object without notes is said so");
	n = usdt_find(src, "fixture", "plain", sites, 4, &err);
	check(n == -ENOEXEC, "usdt notes: a file that is not ELF is said so");
	n = usdt_find("/nonexistent/prog", "fixture", "plain", sites, 4, &err);
	check(n == -ENOENT && strstr(err.msg, "/nonexistent/prog"), "usdt notes: a missing file");
	remove_tree(dir);
}

static void test_format(void)
{
	struct memtrace_ev_usdt r;
	struct memtrace_usdt_arg args[4];
	struct mt_err err;
	char buf[256];
	uint32_t unsup;

	memset(&r, 0, sizeof(r));
	usdt_parse_args("-4@%edi 8@%rax 2@%cx -8@$5", args, &unsup, &err);
	r.nr_args = 4;
	r.args[0] = (uint64_t)-3;
	r.args[1] = 0x7ffc1000;
	r.args[2] = 65535;
	r.args[3] = 5;
	r.arg_faults = 1U << 3;
	usdt_format_args(buf, sizeof(buf), &r, args, 0);
	check(!strcmp(buf, "arg1=-3 arg2=0x7ffc1000 arg3=65535 arg4=?"),
	      "usdt hits: signed, pointer-sized, small unsigned, unreadable ('%s')", buf);
}

static void test_cli(void)
{
	struct mt_options o;
	struct mt_err err;

	check(!cli_parse_words(&o, &err, 3, "--usdt", "/bin/prog:prov:name") &&
	      o.mode == MT_MODE_USDT && !strcmp(o.usdt, "/bin/prog:prov:name"),
	      "usdt cli: --usdt BINARY:PROVIDER:NAME");
	check(!cli_parse_words(&o, &err, 6, "--usdt", "p:a:b", "-c", "p 3", "1") &&
	      o.mode == MT_MODE_USDT && o.cmd_argv && o.interval_s == 1,
	      "usdt cli: with -c and an interval");
	check(cli_parse_words(&o, &err, 4, "--usdt", "p:a:b", "--mmap") == -EINVAL &&
	      strstr(err.msg, "choose one"), "usdt cli: one mode at a time (%s)", err.msg);
	check(cli_parse_words(&o, &err, 5, "--usdt", "p:a:b", "--usdt", "p:c:d") == -EINVAL &&
	      strstr(err.msg, "one probe"), "usdt cli: one probe");
	check(cli_parse_words(&o, &err, 4, "--usdt", "p:a:b", "-a") == -EINVAL &&
	      strstr(err.msg, "probe hits"), "usdt cli: allocation options refused (%s)", err.msg);
}

void usdt_tests(void)
{
	test_cli();
	test_args();
	test_probe_spec();
	test_notes();
	test_format();
}
