package exec

import (
	"math/bits"
	"slices"
	"sync"
	"unsafe"

	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/plan"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Pool keeps float32 buffers of dead values for later values of a similar
// size, so that a steady-state run allocates (almost) nothing and a run's
// peak memory is its largest set of simultaneously live values rather than
// everything it ever produced. A session owns one; runs may share it
// concurrently. Buffers that reach the caller (outputs) never come back.
type Pool struct {
	mu   sync.Mutex
	free map[int][][]float32 // by size class
	// held is the number of float32 elements parked in free.
	held int
	// fresh counts the buffers the pool had to allocate.
	fresh int
	// idle holds the trackers of finished runs, whose maps, buffer records
	// and tensor headers the next runs reuse (one per concurrent run).
	idle []*tracker
}

// NewPool returns an empty pool.
func NewPool() *Pool { return &Pool{free: map[int][][]float32{}} }

// sizeClass rounds n up to 8 steps per power of two, so that values of
// nearly the same size share buffers (a fresh buffer wastes at most 1/8;
// get may also hand out a parked one up to twice the size, largerClasses).
func sizeClass(n int) int {
	if n <= 64 {
		return 64
	}
	shift := bits.Len(uint(n)) - 4
	return ((n + (1 << shift) - 1) >> shift) << shift
}

// largerClasses is how many classes above a value's own get searches for a
// parked buffer (8: up to twice the size) before it allocates. Without it a
// network whose values change size at every layer (DenseNet's growing
// concatenations, U²-Net's scales) parks buffers no later value fits
// exactly and allocates fresh ones: a first run then writes to far more
// fresh memory (each new WebAssembly page is zeroed by the OS on first
// touch, a large part of a first run's time) and the session holds more.
const largerClasses = 8

func (p *Pool) get(n int) []float32 {
	c := sizeClass(n)
	p.mu.Lock()
	for i, cc := 0, c; i <= largerClasses; i, cc = i+1, sizeClass(cc+1) {
		list := p.free[cc]
		if k := len(list); k > 0 {
			b := list[k-1]
			p.free[cc] = list[:k-1]
			p.held -= cap(b)
			p.mu.Unlock()
			b = b[:n]
			clear(b)
			return b
		}
	}
	p.fresh++
	p.mu.Unlock()
	return make([]float32, n, c)
}

// Fresh returns how many buffers the pool has allocated (rather than
// recycled) so far.
func (p *Pool) Fresh() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.fresh
}

func (p *Pool) put(b []float32) {
	c := cap(b)
	p.mu.Lock()
	p.free[c] = append(p.free[c], b[:0])
	p.held += c
	p.mu.Unlock()
}

// Held returns the bytes of parked buffers (for tests and reports).
func (p *Pool) Held() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return int64(p.held) * 4
}

// tracker follows, for one run, which live values use each buffer it took
// from the pool; a buffer goes back when the last of them dies. Values can
// share a buffer (Reshape, Identity, a kernel returning its input, a view
// into it), so counts are kept per buffer, found by address.
//
// A tracker outlives its run: the pool keeps it for the next one, with its
// map, its spare buffer records and the tensor headers made over the
// pool's buffers, so that a steady-state run allocates none of them.
type tracker struct {
	pool *Pool
	mu   sync.Mutex // kernels may allocate from several goroutines
	bufs map[uintptr]*buffer
	// spare holds buffer records no longer in bufs.
	spare   []*buffer
	headers op.Headers
	// scratch is the executor's per-depth step scratch, kept with the
	// tracker so that runs reuse it.
	scratch []*scratch
}

type buffer struct {
	data   []float32
	refs   int
	pinned bool // reached something the run does not track (a sequence, a subgraph's caller)
}

// newTracker returns an idle tracker of p's, or a new one.
func newTracker(p *Pool) *tracker {
	p.mu.Lock()
	defer p.mu.Unlock()
	if k := len(p.idle); k > 0 {
		t := p.idle[k-1]
		p.idle = p.idle[:k-1]
		return t
	}
	return &tracker{pool: p, bufs: map[uintptr]*buffer{}}
}

func (t *tracker) alloc(n int) []float32 {
	b := t.pool.get(n)
	if cap(b) == 0 {
		return b
	}
	t.mu.Lock()
	var rec *buffer
	if k := len(t.spare); k > 0 {
		rec = t.spare[k-1]
		t.spare = t.spare[:k-1]
	} else {
		rec = &buffer{}
	}
	*rec = buffer{data: b}
	t.bufs[start(b)] = rec
	t.mu.Unlock()
	return b
}

func start(b []float32) uintptr { return uintptr(unsafe.Pointer(unsafe.SliceData(b[:1]))) }

// find returns the tracked buffer that holds v's storage, if any.
func (t *tracker) find(v tensor.Value) *buffer {
	tt, ok := v.(*tensor.Tensor)
	if !ok || tt == nil {
		return nil
	}
	d, ok := tt.Data().([]float32)
	if !ok || cap(d) == 0 {
		return nil
	}
	p := start(d)
	if b := t.bufs[p]; b != nil {
		return b
	}
	for _, b := range t.bufs { // a view into a buffer
		s := start(b.data)
		if p >= s && p < s+uintptr(cap(b.data))*4 {
			return b
		}
	}
	return nil
}

// hold records one more live value using v's buffer.
func (t *tracker) hold(v tensor.Value) {
	if t == nil {
		return
	}
	if b := t.find(v); b != nil {
		b.refs++
	}
}

// release records that a value using v's buffer died.
func (t *tracker) release(v tensor.Value) {
	if t == nil {
		return
	}
	b := t.find(v)
	if b == nil {
		return
	}
	b.refs--
	if b.refs <= 0 && !b.pinned {
		delete(t.bufs, start(b.data))
		t.pool.put(b.data)
		*b = buffer{}
		t.mu.Lock()
		t.spare = append(t.spare, b)
		t.mu.Unlock()
	}
}

// reusable reports whether step st may write its output over input i's
// buffer: the input's slot dies at this step, the run owns the buffer, no
// other live value and no other input of the step shares it.
func (t *tracker) reusable(st *plan.Step, ins []*tensor.Tensor, i int) bool {
	if i < 0 || i >= len(st.In) || st.In[i] < 0 || !slices.Contains(st.Free, st.In[i]) {
		return false
	}
	b := t.find(ins[i])
	if b == nil || b.pinned || b.refs != 1 {
		return false
	}
	for j, other := range ins {
		if j != i && other != nil && t.find(other) == b {
			return false
		}
	}
	return true
}

// pin keeps every buffer reachable from v out of the pool for good.
func (t *tracker) pin(v tensor.Value) {
	if t == nil || v == nil {
		return
	}
	switch x := v.(type) {
	case *tensor.Tensor:
		if b := t.find(x); b != nil {
			b.pinned = true
		}
	case *tensor.Sequence:
		if x != nil {
			for _, e := range x.Items {
				t.pin(e)
			}
		}
	case *tensor.Optional:
		if x != nil && x.Value != nil {
			t.pin(x.Value)
		}
	}
}

// done forgets the run's bookkeeping and parks the tracker for the next run.
// Buffers still tracked are the outputs' and pinned ones, which stay with
// their holders and never come back: their headers are forgotten too.
func (t *tracker) done() {
	for k, b := range t.bufs {
		t.headers.Forget(b.data)
		delete(t.bufs, k)
		*b = buffer{}
		t.spare = append(t.spare, b)
	}
	t.pool.mu.Lock()
	t.pool.idle = append(t.pool.idle, t)
	t.pool.settle()
	t.pool.mu.Unlock()
}

// settle puts the parked buffers of each size class in address order (with
// p.mu held), so that every run starts from the same pool and hands the
// same buffers to the same values: a run that started where the last one
// left off would hand them out in a new order each time, and the headers
// kept per buffer (op.Headers) would keep missing.
func (p *Pool) settle() {
	for _, list := range p.free {
		// Insertion sort: the lists are short, and slices.SortFunc's
		// instantiation would cost the wasm binary 20 KB.
		for i := 1; i < len(list); i++ {
			for j := i; j > 0 && start(list[j][:1]) < start(list[j-1][:1]); j-- {
				list[j], list[j-1] = list[j-1], list[j]
			}
		}
	}
}
