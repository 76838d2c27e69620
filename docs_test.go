package gort_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// readmeMaxLines bounds README.md: it is a user's page; design, measurements
// and history belong in docs/.
const readmeMaxLines = 400

// jargon lists phrases of the project's development process that mean
// nothing to a reader who was not there. They are matched case-insensitively
// on whole words, outside code blocks, in README.md and docs/*.md. Legitimate
// uses of the same words ("round trip", "round_prefer_floor",
// "InferenceSession", "no execution provider can serve this session") do not match.
var jargon = []*regexp.Regexp{
	regexp.MustCompile(`(?i)\b(this|that|last|next|previous|earlier|later|each|every|one|a) rounds?\b`),
	regexp.MustCompile(`(?i)\brounds? (ago|\d+)\b`),
	regexp.MustCompile(`(?i)\b(this|that|last|next|previous|earlier|later) stops?\b`),
	regexp.MustCompile(`(?i)\bstops? ago\b`),
	regexp.MustCompile(`(?i)\b(last|next|previous|earlier|later|helper|development|work) sessions?\b`),
	regexp.MustCompile(`(?i)\bissue #?\d+\b`),
	regexp.MustCompile(`(?i)\bthe team('s)?\b`),
	regexp.MustCompile(`(?i)\bthe brief\b`),
}

// TestDocs holds the README and docs/ to what a newcomer needs: README.md at
// most readmeMaxLines lines, no development jargon in README.md or docs/*.md,
// and every relative link in them pointing to a file that exists (and, for a
// link into a Markdown file with a #fragment, to one of its headings).
func TestDocs(t *testing.T) {
	files, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	files = append([]string{"README.md"}, files...)

	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(readme), "\n"); n > readmeMaxLines {
		t.Errorf("README.md has %d lines, more than %d: move details to docs/", n, readmeMaxLines)
	}
	if !strings.Contains(string(readme), "\n## Two commands\n") || !strings.Contains(string(readme), "make test ") {
		t.Errorf("README.md lost its \"## Two commands\" section with `make test` (.ci/run runs the README's test command)")
	}

	anchors := map[string]map[string]bool{}
	for _, f := range files {
		lines := proseLines(t, f)
		for _, l := range lines {
			for _, re := range jargon {
				if m := re.FindString(l.text); m != "" {
					t.Errorf("%s:%d: development jargon %q: write for a reader who was not there", f, l.n, m)
				}
			}
			for _, m := range mdLink.FindAllStringSubmatch(l.text, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, frag, _ := strings.Cut(target, "#")
				p := f
				if file != "" {
					p = filepath.Join(filepath.Dir(f), file)
					if _, err := os.Stat(p); err != nil {
						t.Errorf("%s:%d: link %q: %s does not exist", f, l.n, target, p)
						continue
					}
				}
				if frag == "" || !strings.HasSuffix(p, ".md") {
					continue
				}
				if anchors[p] == nil {
					anchors[p] = headingAnchors(t, p)
				}
				if !anchors[p][frag] {
					t.Errorf("%s:%d: link %q: %s has no heading #%s", f, l.n, target, p, frag)
				}
			}
		}
	}
}

// mdLink matches an inline Markdown link or image, capturing its target.
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

type line struct {
	n    int
	text string
}

// proseLines returns a Markdown file's lines outside fenced code blocks, with
// inline code spans removed.
func proseLines(t *testing.T, path string) []line {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []line
	fenced := false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			out = append(out, line{n, codeSpan.ReplaceAllString(text, "``")})
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var codeSpan = regexp.MustCompile("`[^`]*`")

// headingAnchors returns the fragments GitHub gives a Markdown file's
// headings: lower case, punctuation dropped, spaces as hyphens, and -1, -2 …
// appended to repeats.
func headingAnchors(t *testing.T, path string) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	seen := map[string]int{}
	fenced := false
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(h) {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
				b.WriteRune(r)
			case r == ' ':
				b.WriteRune('-')
			}
		}
		a := b.String()
		if k := seen[a]; k > 0 {
			out[a+"-"+strconv.Itoa(k)] = true
		} else {
			out[a] = true
		}
		seen[a]++
	}
	return out
}
