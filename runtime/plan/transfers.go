package plan

import (
	"github.com/gort-dev/gort/runtime/errs"
	"github.com/gort-dev/gort/runtime/graph"
	"github.com/gort-dev/gort/runtime/op"
	"github.com/gort-dev/gort/runtime/tensor"
)

// Transfer says what a transfer step does; NoTransfer for every other step.
type Transfer int

const (
	NoTransfer Transfer = iota
	// Upload copies a CPU value to the accelerator.
	Upload
	// Download copies an accelerator's value to the CPU.
	Download
)

func (t Transfer) String() string {
	switch t {
	case Upload:
		return "upload"
	case Download:
		return "download"
	}
	return ""
}

// Transferer is an Accelerator that copies CPU tensors to its device: the
// plan's upload steps call it (download steps call tensor.Remote.Download).
// Without it an upload step fails when it runs (placement-only
// accelerators, such as webgpu.Dry, never run).
type Transferer interface {
	Upload(t *tensor.Tensor) (tensor.Remote, error)
}

// DeviceIO is implemented by accelerator kernels that read some inputs or
// write some outputs on the CPU (a shape operand, a mask, a constant the
// kernel uploaded when it was built). A kernel without it reads every
// input that is not a constant, and writes every output, on its device.
type DeviceIO interface {
	// ReadsOnDevice reports whether input i is read as a device value.
	ReadsOnDevice(i int) bool
	// WritesOnDevice reports whether output j is a device value.
	WritesOnDevice(j int) bool
}

// insertTransfers makes every device boundary of the main graph a step of
// its own, once placement is final: where a step reads a value on another
// device than the one holding it, a transfer step copies it into a slot
// of its own ("name@device") just before its first such reader, and later
// readers on that device share the copy. Graph outputs a device step
// produced get a download at the end (a run that keeps them on the device
// asks for the device slot instead, and the download does not run). Feeds
// may arrive on either side (a caller may feed a device value): a device
// step reads a feed through an upload, and a CPU step reads a float feed
// through a download; each passes a value already where it goes through.
func (p *Plan) insertTransfers(acc Accelerator, g *graph.Graph, types map[string]graph.Type, consts map[int]tensor.Value, slot func(string) int) {
	p.TakesDeviceFeeds = true
	dev := acc.Device()
	tr, _ := acc.(Transferer)
	// where holds the device of each slot's value; "" for feeds, which
	// may come on either.
	where := make(map[int]Device)
	for s := range consts {
		where[s] = CPU
	}
	feed := map[int]bool{}
	elem := map[int]graph.Type{}
	for i, s := range p.Inputs {
		if _, isConst := consts[s]; isConst {
			continue
		}
		feed[s] = true
		where[s] = ""
		elem[s] = g.Inputs[i].Type
	}
	copies := map[int]map[Device]int{}
	var steps []*Step
	ensure := func(s int, d Device) int {
		if c, ok := copies[s][d]; ok {
			return c
		}
		name := p.Names[s]
		c := slot(name + "@" + string(d))
		dir, opType := Upload, "Upload"
		if d == CPU {
			dir, opType = Download, "Download"
		}
		n := &graph.Node{Node: op.Node{Name: dir.String() + " " + name, OpType: opType, Domain: "gort", Inputs: []string{name}, Outputs: []string{p.Names[c]}}, Reads: []string{name}}
		st := &Step{Node: n, Device: dev, In: []int{s}, Out: []int{c}, Reads: []int{s}, Transfer: dir, Bytes: bytesOf(types[name])}
		st.Kernel = transferKernel{dir: dir, tr: tr, dev: dev}
		if dir == Upload {
			st.CPUKernel = passThrough{}
		} else {
			st.CPUKernel = st.Kernel
		}
		steps = append(steps, st)
		if copies[s] == nil {
			copies[s] = map[Device]int{}
		}
		copies[s][d] = c
		where[c] = d
		if d == CPU {
			if p.cpuCopy == nil {
				p.cpuCopy = map[string]int{}
			}
			p.cpuCopy[name] = c
		}
		return c
	}
	// need returns the slot a reader on device d reads s from.
	need := func(s int, d Device) int {
		have, known := where[s]
		switch {
		case !known || have == d:
			return s
		case have == "" && d == CPU:
			// A feed read on the CPU: only float tensors can come on
			// the device.
			if t := elem[s]; t.Kind != graph.KindTensor && t.Kind != graph.KindUnknown || t.Elem != tensor.Undefined && t.Elem != tensor.Float {
				return s
			}
		}
		return ensure(s, d)
	}
	for _, st := range p.Steps {
		onDev := st.Device != CPU
		io, _ := st.Kernel.(DeviceIO)
		if onDev {
			st.OnDevice = make([]bool, len(st.In))
		}
		for i, s := range st.In {
			if s < 0 {
				continue
			}
			d := CPU
			if onDev {
				switch {
				case io != nil:
					if io.ReadsOnDevice(i) {
						d = dev
					}
				case i >= len(st.Node.Consts) || st.Node.Consts[i] == nil:
					d = dev
				}
				st.OnDevice[i] = d != CPU
			}
			c := need(s, d)
			if c != s {
				st.In[i] = c
				for j, r := range st.Reads {
					if r == s {
						st.Reads[j] = c
					}
				}
			}
		}
		// What subgraphs read from this scope (a step with subgraphs runs
		// on the CPU).
		for j, r := range st.Reads {
			if !onDev && r >= 0 {
				st.Reads[j] = need(r, CPU)
			}
		}
		steps = append(steps, st)
		for j, s := range st.Out {
			if s < 0 {
				continue
			}
			d := CPU
			if onDev && (io == nil || io.WritesOnDevice(j)) {
				d = dev
			}
			where[s] = d
		}
	}
	for i, s := range p.Outputs {
		if where[s] == dev {
			if p.deviceOut == nil {
				p.deviceOut = map[string]int{}
			}
			p.deviceOut[p.OutNames[i]] = s
			p.Outputs[i] = ensure(s, CPU)
		}
	}
	p.Steps = steps
}

// bytesOf is the size of a value of type t, 0 when unknown.
func bytesOf(t graph.Type) int64 {
	if t.Elem == tensor.Undefined || t.Shape == nil || t.Elem.ElemBytes() == 0 {
		return 0
	}
	n := int64(t.Elem.ElemBytes())
	for _, d := range t.Shape {
		if d.Param != "" || d.Value < 0 {
			return 0
		}
		n *= d.Value
	}
	return n
}

// ValueSlot is the slot from which a run returns the value of this name:
// its CPU copy where the plan made one, unless onDevice asks for the value
// where a device step left it (exec.Options.KeepOnDevice).
func (p *Plan) ValueSlot(name string, onDevice bool) (int, bool) {
	if onDevice {
		if s, ok := p.deviceOut[name]; ok {
			return s, true
		}
	}
	if s, ok := p.cpuCopy[name]; ok {
		return s, true
	}
	s, ok := p.SlotOf[name]
	return s, ok
}

// transferKernel is the kernel of a transfer step (an op.ValueKernel). A
// value already on the side it goes to passes through.
type transferKernel struct {
	dir Transfer
	tr  Transferer
	dev Device
}

func (k transferKernel) RunValues(_ *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	switch v := in[0].(type) {
	case nil:
		return nil, errs.New(errs.Internal, "nothing to %s", k.dir)
	case tensor.Remote:
		if k.dir == Upload {
			return []tensor.Value{v}, nil
		}
		t, err := v.Download()
		if err != nil {
			return nil, err
		}
		return []tensor.Value{t}, nil
	case *tensor.Tensor:
		if k.tr == nil && k.dir == Upload {
			return nil, errs.New(errs.Internal, "%s cannot receive values (it is no plan.Transferer)", k.dev)
		}
		if k.dir == Download {
			return []tensor.Value{v}, nil
		}
		r, err := k.tr.Upload(v)
		if err != nil {
			return nil, err
		}
		return []tensor.Value{r}, nil
	}
	if k.dir == Download {
		return []tensor.Value{in[0]}, nil // a sequence, map or optional: CPU values
	}
	return nil, errs.New(errs.Runtime, "cannot %s a %T", k.dir, in[0])
}

// passThrough is an upload step's kernel when the run falls back to the
// CPU (a lost device): the value stays where it is.
type passThrough struct{}

func (passThrough) RunValues(_ *op.Context, in []tensor.Value) ([]tensor.Value, error) {
	return []tensor.Value{in[0]}, nil
}
