package model

import "github.com/heed-asr/heed/internal/kern"

// embedForward copies rows ids of table (V, E) into y (len(ids), E).
func embedForward[F kern.Float](y, table []F, ids []int, e int) {
	for i, id := range ids {
		copy(y[i*e:i*e+e], table[id*e:id*e+e])
	}
}

// embedBackward adds dy (len(ids), E) into rows ids of dtable (V, E).
func embedBackward[F kern.Float](dtable, dy []F, ids []int, e int) {
	for i, id := range ids {
		addTo(dtable[id*e:id*e+e], dy[i*e:i*e+e])
	}
}
