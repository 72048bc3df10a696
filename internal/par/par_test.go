package par

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
)

func TestForEach(t *testing.T) {
	for _, tc := range []struct{ n, jobs int }{{0, 1}, {1, 1}, {10, 3}, {100, 8}, {5, 0}} {
		var calls [100]atomic.Int32
		err := ForEach(context.Background(), tc.n, tc.jobs, func(i int) error {
			calls[i].Add(1)
			return nil
		})
		if err != nil {
			t.Fatalf("n=%d jobs=%d: %v", tc.n, tc.jobs, err)
		}
		for i := 0; i < tc.n; i++ {
			if c := calls[i].Load(); c != 1 {
				t.Errorf("n=%d jobs=%d: index %d called %d times", tc.n, tc.jobs, i, c)
			}
		}
	}
}

func TestForEachError(t *testing.T) {
	boom := errors.New("boom")
	var after atomic.Int32
	err := ForEach(context.Background(), 1000, 1, func(i int) error {
		if i == 3 {
			return boom
		}
		if i > 3 {
			after.Add(1)
		}
		return nil
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want boom", err)
	}
	if after.Load() != 0 {
		t.Errorf("%d indexes started after the error", after.Load())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := ForEach(ctx, 10, 2, func(int) error { return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
