// SPDX-License-Identifier: MIT
//! The tree workload (tests/workloads/tree.c) as a Rust release binary:
//!
//!   main -> run -> work_a -> leaf_a -> unit   60 % of the CPU time (3 units)
//!               -> work_b -> leaf_b -> unit   40 % (2 units)
//!
//! A unit is real standard-library work (a BTreeMap filled and walked, a
//! vector sorted), so samples land in std's generic code inlined into
//! unit, and in its out-of-line parts.  The functions of the call tree are
//! unmangled so that nm shows them plainly to the test.
//!
//! usage: rtree [MILLISECONDS [cpu]] (default 2000): MILLISECONDS of the
//! clock, or with "cpu" of the process's CPU time.  Prints "cpu_ms=N".

use std::collections::BTreeMap;
use std::hint::black_box;

#[repr(C)]
struct Timespec {
    sec: i64,
    nsec: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
}

const CLOCK_MONOTONIC: i32 = 1;
const CLOCK_PROCESS_CPUTIME_ID: i32 = 2;

fn millis(clock: i32) -> i64 {
    let mut ts = Timespec { sec: 0, nsec: 0 };
    // SAFETY: ts is a valid, writable timespec.
    unsafe { clock_gettime(clock, &mut ts) };
    ts.sec * 1000 + ts.nsec / 1_000_000
}

/// A few milliseconds of work whose cost does not depend on seed.
#[inline(never)]
fn unit(seed: u64) -> u64 {
    let mut m = BTreeMap::new();
    let mut v = Vec::with_capacity(4096);
    let mut x = seed | 1;
    for i in 0..4096u64 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        m.insert(x % 65536, i);
        v.push(x);
    }
    v.sort_unstable();
    let walk: u64 = m.range(1024..).map(|(k, n)| k ^ n).fold(0, u64::wrapping_add);
    black_box(walk ^ v[v.len() / 2])
}

#[no_mangle]
#[inline(never)]
pub extern "C" fn leaf_a(seed: u64) -> u64 {
    black_box(unit(seed))
}

#[no_mangle]
#[inline(never)]
pub extern "C" fn leaf_b(seed: u64) -> u64 {
    black_box(unit(seed ^ 0x5555))
}

#[no_mangle]
#[inline(never)]
pub extern "C" fn work_a(seed: u64) -> u64 {
    black_box(leaf_a(seed) ^ leaf_a(seed + 1) ^ leaf_a(seed + 2))
}

#[no_mangle]
#[inline(never)]
pub extern "C" fn work_b(seed: u64) -> u64 {
    black_box(leaf_b(seed) ^ leaf_b(seed + 1))
}

#[no_mangle]
#[inline(never)]
pub extern "C" fn run(ms: i64, clock: i32) -> u64 {
    let end = millis(clock) + ms;
    let mut x = 0u64;
    let mut seed = 0u64;
    while millis(clock) < end {
        x ^= work_a(seed);
        x ^= work_b(seed);
        seed += 1;
    }
    black_box(x)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let ms = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let clock = match args.get(2).map(String::as_str) {
        Some("cpu") => CLOCK_PROCESS_CPUTIME_ID,
        _ => CLOCK_MONOTONIC,
    };
    black_box(run(ms, clock));
    eprintln!("cpu_ms={}", millis(CLOCK_PROCESS_CPUTIME_ID));
}
