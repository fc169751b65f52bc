// SPDX-License-Identifier: MIT

// A Go program for the unwinder's tests (tests/cli/record/unwind.sh builds it
// with the go tool, offline: the standard library only).  Four goroutines
// hash and allocate; the allocation makes the runtime grow stacks
// (morestack) and collect garbage on the system stack (systemstack), so
// samples land on g0's stack as well as on goroutines' ones.
//
// usage: gowork [MILLISECONDS] (default 2000) of the clock.
package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

var sink []byte

//go:noinline
func hashWork(n int) byte {
	var b [64]byte
	var s byte
	for i := 0; i < n; i++ {
		b[i%64] = byte(i)
		h := sha256.Sum256(b[:])
		s ^= h[0]
	}
	return s
}

// deep recurses so that a fresh goroutine's small stack must grow.
//
//go:noinline
func deep(n int) int {
	var pad [256]byte
	pad[n%256] = byte(n)
	if n == 0 {
		return int(pad[0])
	}
	return deep(n-1) + int(pad[n%256])
}

//go:noinline
func allocWork(n int) int {
	var keep [][]byte
	t := 0
	for i := 0; i < n; i++ {
		x := make([]byte, 1024+i%4096)
		keep = append(keep, x)
		if len(keep) > 256 {
			keep = keep[:0]
		}
		t += len(x)
	}
	sink = keep[0]
	done := make(chan int)
	go func() { done <- deep(64) }()
	return t + <-done
}

func main() {
	ms := 2000
	if len(os.Args) > 1 {
		ms, _ = strconv.Atoi(os.Args[1])
	}
	end := time.Now().Add(time.Duration(ms) * time.Millisecond)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for time.Now().Before(end) {
				if g%2 == 0 {
					hashWork(2000)
				} else {
					allocWork(2000)
				}
			}
		}(g)
	}
	wg.Wait()
	fmt.Fprintln(os.Stderr, "done")
}
