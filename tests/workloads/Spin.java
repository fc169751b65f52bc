// SPDX-License-Identifier: MIT
// OpenJDK's JIT for tests/cli/record/java.sh: a call tree of small methods, run
// long enough for the JIT to compile them.
// usage: java Spin [MILLISECONDS] (default 2000).  Prints "sink=N".
public class Spin {
	static long sink;

	static long leaf(long x) {
		for (int i = 0; i < 50; i++)
			x = x * 6364136223846793005L + 1442695040888963407L;
		return x;
	}

	static long walk(int depth, long x) {
		if (depth == 0)
			return leaf(x);
		return walk(depth - 1, x + depth) ^ walk(depth - 1, x - depth);
	}

	public static void main(String[] args) {
		long ms = args.length > 0 ? Long.parseLong(args[0]) : 2000;
		long end = System.nanoTime() + ms * 1000000L;

		while (System.nanoTime() < end)
			sink += walk(8, sink);
		System.out.println("sink=" + sink);
	}
}
