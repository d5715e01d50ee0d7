// SPDX-License-Identifier: GPL-2.0
/*
 * cxxleak: C++ allocations known exactly, through libstdc++'s operator
 * new and delete, for memtrace-read's demangled stacks and its counts.
 *
 *   Shapes::keep_circles()   3 x new Circle (sizeof 48), kept        144 B
 *   Shapes::keep_buffer()    1 x new char[1000], kept               1000 B
 *   churn()                  100 x { new Circle; delete }
 *   grow()                   a std::vector<long> of 64 pushes, freed
 *
 * libstdc++ itself keeps its emergency exception pool (one block, from its
 * constructor); Valgrind Memcheck counts it, and so do we.
 */
#include <cstdio>
#include <vector>

#if defined(__clang__)
#define NOINLINE __attribute__((noinline))
#else
#define NOINLINE __attribute__((noinline, noclone))
#endif

namespace shapes {

struct Circle {
	double x, y, r, area, perimeter, weight;	/* 48 bytes */
	explicit Circle(double radius) : x(0), y(0), r(radius), area(0), perimeter(0), weight(0) {}
};

class Shapes {
public:
	NOINLINE void keep_circles();
	NOINLINE void keep_buffer();

private:
	Circle *circles_[3] = {};
	char *buffer_ = nullptr;
};

void Shapes::keep_circles()
{
	for (volatile int i = 0; i < 3; i++)
		circles_[i] = new Circle(i + 1.0);
}

void Shapes::keep_buffer()
{
	buffer_ = new char[1000];
}

} // namespace shapes

static shapes::Circle *volatile scratch;
static shapes::Shapes *volatile kept;

NOINLINE static void churn()
{
	for (volatile int i = 0; i < 100; i++) {
		scratch = new shapes::Circle(2.0);
		delete scratch;
	}
}

NOINLINE static long grow()
{
	std::vector<long> v;

	for (long i = 0; i < 64; i++)
		v.push_back(i);
	return v.back();
}

int main()
{
	static shapes::Shapes s;

	kept = &s;
	s.keep_circles();
	s.keep_buffer();
	churn();
	return grow() == 63 ? 0 : 1;
}
