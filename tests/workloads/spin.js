// SPDX-License-Identifier: MIT
// V8's JIT for bench/realworld.sh: a call tree of small functions, run
// long enough for TurboFan to compile them (the JavaScript twin of
// Spin.java).  Run it with --perf-basic-prof so that profilers can name
// the compiled code from /tmp/perf-PID.map.
// usage: node spin.js [MILLISECONDS] (default 2000).  Prints "sink=N".
'use strict';

// An LCG step 50 times, in 32-bit integers: work the JIT keeps in
// registers, with no allocation for the GC to do.
function leaf(x) {
	for (let i = 0; i < 50; i++)
		x = (Math.imul(x, 1664525) + 1013904223) | 0;
	return x;
}

function walk(depth, x) {
	if (depth === 0)
		return leaf(x);
	return walk(depth - 1, (x + depth) | 0) ^ walk(depth - 1, (x - depth) | 0);
}

function main(ms) {
	const end = process.hrtime.bigint() + BigInt(ms) * 1000000n;
	let sink = 0;

	while (process.hrtime.bigint() < end)
		sink = (sink + walk(8, sink)) | 0;
	console.log('sink=' + sink);
}

main(process.argv.length > 2 ? Number(process.argv[2]) : 2000);
