//go:build !amd64

package kern

// hasAsm reports whether this build has assembly kernels. On other
// architectures the portable implementation (implGo in gemm.go) is the only
// one registered.
const hasAsm = false
