// SPDX-License-Identifier: GPL-2.0
/*
 * cxxchain: blocks allocated through Debian's libstdc++ (no frame
 * pointers) from a program built -O2 -fomit-frame-pointer, for user
 * stacks by unwind tables compared with Memcheck's
 * (tests/e2e/44-user-cfi.sh): a std::string of 100 characters (its
 * buffer comes from libstdc++'s _M_create through operator new) and a
 * std::vector<int> of 1000 (operator new through the vector's
 * allocator, inlined here), both kept.
 */
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline, noclone, noipa))

static std::string *volatile kept_string;
static std::vector<int> *volatile kept_vector;

static NOINLINE void make_string()
{
	kept_string = new std::string(100, 'x');
}

static NOINLINE void make_vector()
{
	kept_vector = new std::vector<int>(1000, 7);
}

int main()
{
	make_string();
	make_vector();
	return 0;
}
