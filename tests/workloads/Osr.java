// SPDX-License-Identifier: MIT
// Long-running loops that the JIT replaces on the stack (on-stack
// replacement, OSR): each method below is entered once per round and
// loops until its deadline, so its loop runs first in the interpreter,
// then in an OSR-compiled frame of the interpreter's frame's shape, with
// interpreted and compiled callers and callees around it
// (Arrays.sort's).  usage: java Osr MILLISECONDS THREADS
import java.util.Arrays;
import java.util.Random;

public class Osr {
    static long sorter(Random r, long end) {
        long sum = 0;
        while (System.nanoTime() < end) {
            int[] a = new int[20000];
            for (int i = 0; i < a.length; i++) a[i] = r.nextInt();
            Arrays.sort(a);
            sum += a[a.length / 2];
        }
        return sum;
    }

    static long hasher(long end) {
        long h = 1;
        int i = 0;
        do {
            for (int k = 0; k < 1000000; k++, i++) h = h * 31 + (i ^ (h >>> 7));
        } while (System.nanoTime() < end);
        return h;
    }

    public static void main(String[] args) throws Exception {
        long ms = Long.parseLong(args[0]);
        int threads = Integer.parseInt(args[1]);
        long slice = ms * 1000000L / 6;
        Thread[] t = new Thread[threads];
        for (int k = 0; k < threads; k++) {
            final int id = k;
            t[k] = new Thread(() -> {
                long s = 0;
                Random r = new Random(id);
                for (int j = 0; j < 3; j++) {
                    s += sorter(r, System.nanoTime() + slice);
                    s += hasher(System.nanoTime() + slice);
                }
                System.out.println(s);
            });
            t[k].start();
        }
        for (Thread x : t) x.join();
    }
}
