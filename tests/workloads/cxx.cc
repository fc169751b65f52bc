// SPDX-License-Identifier: MIT
// C++ names for sp-sym's demangling test: a namespaced method and a
// template, whose symbols are mangled.  usage: cxx [MILLISECONDS]
#include <chrono>
#include <cstdlib>

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
}

int
main(int argc, char **argv)
{
	long ms = argc > 1 ? std::atol(argv[1]) : 500;
	auto end = std::chrono::steady_clock::now() +
	    std::chrono::milliseconds(ms);
	shapes::Spinner s;

	while (std::chrono::steady_clock::now() < end)
		shapes::twice(s);
	return 0;
}
