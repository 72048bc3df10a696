package kern

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func threadCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestTune(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, sh := range []struct{ l layout; m, k, n int }{{layoutNT, 256, 320, 384}, {layoutNN, 256, 320, 384}, {layoutTN, 256, 320, 384}, {layoutNT, 500, 576, 384}, {layoutNT, 1000, 80, 768}} {
		r := rand.New(rand.NewPCG(1, 2))
		a, b, c := randSlice(r, sh.m*sh.k), randSlice(r, sh.k*sh.n), make([]float32, sh.m*sh.n)
		best := 0.0
		for rep := 0; rep < 5; rep++ {
			t0 := threadCPU()
			w0 := time.Now()
			it := 0
			for time.Since(w0) < 60*time.Millisecond {
				matMul32(active, sh.l, c, a, b, sh.m, sh.k, sh.n, false)
				it++
			}
			g := 2 * float64(sh.m*sh.k*sh.n) * float64(it) / (threadCPU() - t0).Seconds() / 1e9
			best = max(best, g)
		}
		fmt.Printf("%s %dx%dx%d: %.1f GFLOP/s (cpu time)\n", layouts[sh.l].name, sh.m, sh.k, sh.n, best)
	}
}
