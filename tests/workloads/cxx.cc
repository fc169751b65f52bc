// SPDX-License-Identifier: MIT
// C++ names for sp-sym's and the readers' demangling tests: a namespaced
// method, a template, and a std::map lookup, whose symbols are mangled.
// Built -O0 (cxx: nothing inlined) and -O2 (cxx-O2: std::map's find and
// _Rb_tree's _M_lower_bound inlined into lookups, frames DWARF names).
// usage: cxx [MILLISECONDS]
#include <chrono>
#include <cstdlib>
#include <map>

namespace shapes {
struct Spinner {
	volatile unsigned long n = 0;
	void __attribute__((noinline)) spin(unsigned long k)
	{
		for (unsigned long i = 0; i < k; i++)
			n = n + i;
	}
};

template <typename T> void __attribute__((noinline))
twice(T &t)
{
	t.spin(200000);
	t.spin(200000);
}

long __attribute__((noinline))
lookups(const std::map<int, int> &m, int n)
{
	long s = 0;

	for (int i = 0; i < n; i++) {
		auto it = m.find(i * 7 % 1000);

		if (it != m.end())
			s += it->second;
	}
	return s;
}
}

static volatile long sink;

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? std::atol(argv[1]) : 500;
	auto end = std::chrono::steady_clock::now() +
	    std::chrono::milliseconds(ms);
	shapes::Spinner s;
	std::map<int, int> m;

	for (int i = 0; i < 1000; i += 2)
		m[i] = i;
	while (std::chrono::steady_clock::now() < end) {
		shapes::twice(s);
		sink = sink + shapes::lookups(m, 20000);
	}
	return 0;
}
