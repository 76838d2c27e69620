package cli

import (
	"errors"
	"flag"
	"fmt"
	"strings"
)

// cmdFlags is a verb's flag set. Flags may come before or after the model
// path (flag stops at the first positional argument, so parsing resumes
// after each one).
type cmdFlags struct {
	*flag.FlagSet
	e    *env
	name string
	json *bool
}

func newFlags(e *env, name, args, summary string) *cmdFlags {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.err)
	c := &cmdFlags{FlagSet: fs, e: e, name: name}
	c.json = fs.Bool("json", false, "write the result as JSON")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: gort %s %s [options]\n\n%s\n\noptions:\n", name, args, summary)
		fs.PrintDefaults()
	}
	return c
}

// parse returns the positional arguments, or an exit code when parsing ended
// the command (--help: 0, a bad flag: 2).
func (c *cmdFlags) parse(args []string, npos int) ([]string, int, bool) {
	for _, a := range args {
		if a == "-h" || a == "-help" || a == "--help" {
			c.SetOutput(c.e.out)
			c.Usage()
			return nil, exitOK, false
		}
	}
	var pos []string
	for {
		if err := c.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitOK, false
			}
			return nil, exitUsage, false
		}
		args = c.Args()
		if len(args) == 0 {
			break
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
	if len(pos) != npos {
		fmt.Fprintf(c.e.err, "gort %s: expected %d argument(s), got %d (%s)\n", c.name, npos, len(pos), strings.Join(pos, " "))
		c.Usage()
		return nil, exitUsage, false
	}
	return pos, 0, true
}

// multi is a repeatable string flag.
type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(v string) error { *m = append(*m, v); return nil }
