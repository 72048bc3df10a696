// Package par runs independent pieces of work on a fixed number of
// goroutines.
package par

import (
	"context"
	"sync"
)

// ForEach calls fn(i) for every i in [0, n) on jobs goroutines (at least
// one). After the first error no new index is started; ForEach returns that
// error, or ctx's error if ctx was cancelled first.
func ForEach(ctx context.Context, n, jobs int, fn func(i int) error) error {
	var (
		mu    sync.Mutex
		next  int
		first error
		wg    sync.WaitGroup
	)
	for w := 0; w < max(1, jobs); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := next
				next++
				stop := first != nil || ctx.Err() != nil
				mu.Unlock()
				if i >= n || stop {
					return
				}
				if err := fn(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
