// SPDX-License-Identifier: GPL-2.0
/*
 * manylibs: a program linking 20 of Debian's shared libraries (those
 * scripts/deps.sh installs for building memtrace), none built with frame
 * pointers, for the memory their unwind tables take in the module
 * (tests/bench/unwind-pairs.sh).  It takes the address of a function of
 * each, so that each is a real dependency, allocates one block and frees
 * it, and prints how many it links.
 */
#include <crypt.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <jansson.h>
#include <libunwind-ptrace.h>
#include <lzma.h>
#include <math.h>
#include <openssl/crypto.h>
#include <openssl/ssl.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <unwind.h>
#include <zlib.h>
#include <capstone/capstone.h>
#include <gperftools/profiler.h>
#include <protobuf-c/protobuf-c.h>

/* libstdc++'s demangler has C linkage (cxxabi.h is C++ only). */
char *__cxa_demangle(const char *name, char *buf, size_t *len, int *status);
/* libunwind.so's local unwinder and libmvec's vector cos, by their ABI names. */
int _ULx86_64_init_local(void *cursor, void *context);
void _ZGVbN2v_cos(void);

typedef void (*fn)(void);

/* Casts between function pointer types: only the addresses are kept. */
#define F(f) ((fn)(void (*)(void))(f))

static fn volatile linked[] = {
	F(OPENSSL_init_ssl),		/* libssl */
	F(OpenSSL_version_num),		/* libcrypto */
	F(elf_version),			/* libelf */
	F(dwarf_begin),			/* libdw */
	F(cap_init),			/* libcap */
	F(zlibVersion),			/* libz */
	F(json_object),			/* libjansson */
	F(cs_version),			/* libcapstone */
	F(protobuf_c_version),		/* libprotobuf-c */
	F(cos),				/* libm */
	F(crypt),			/* libcrypt */
	F(b64_ntop),			/* libresolv */
	F(__cxa_demangle),		/* libstdc++ */
	F(_Unwind_GetIP),		/* libgcc_s */
	F(ProfilerFlush),		/* libprofiler */
	F(_ULx86_64_init_local),	/* libunwind */
	F(_Ux86_64_create_addr_space),	/* libunwind-x86_64 */
	F(_UPT_create),			/* libunwind-ptrace */
	F(lzma_version_number),		/* liblzma */
	F(_ZGVbN2v_cos),		/* libmvec */
};

int main(void)
{
	size_t n = 0;
	char *p;

	for (size_t i = 0; i < sizeof(linked) / sizeof(linked[0]); i++)
		n += linked[i] != NULL;
	p = strdup(zlibVersion());
	if (!p)
		return 1;
	printf("libraries %zu (zlib %s)\n", n, p);
	free(p);
	return 0;
}
