//go:build !unix

package kern

import "time"

// processCPU is unavailable here; benchmarks then report wall-time rates
// only.
func processCPU() time.Duration { return 0 }
