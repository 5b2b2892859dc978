package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/prlab/prlab/pkg/pagerank"
	"github.com/prlab/prlab/pkg/study"
)

// graphFlags are the flags that name a user's graph file and say how to read
// it: --graph PATH (repeatable where the command takes several), --format,
// --metadata, --name, --undirected, --columns. Files are only ever opened
// for reading.
type graphFlags struct {
	paths      listFlag
	format     string
	metadata   string
	name       string
	undirected bool
	columns    listFlag
}

func formatNames() string {
	var s []string
	for _, f := range pagerank.Formats {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// addGraphFlags registers the graph flags on fs. With several, --graph may be
// given more than once (prlab scale); --metadata and --name then do not apply.
func addGraphFlags(fs *flag.FlagSet, several bool) *graphFlags {
	gf := &graphFlags{}
	help := "a graph file to read instead of the bundled graph (read-only; a format of --format, optionally .gz)"
	if several {
		help = "a graph file to run beside the generated graphs (read-only; a format of --format, optionally .gz); repeat for more graphs"
	}
	fs.Var(&gf.paths, "graph", help)
	fs.StringVar(&gf.format, "format", "", "format of --graph: "+formatNames()+" (default: from the file name and first lines)")
	if !several {
		fs.StringVar(&gf.metadata, "metadata", "", "optional table (TSV, or CSV when named .csv) with an id column and any of year, title, label for the top table")
		fs.StringVar(&gf.name, "name", "", "the graph's name in the report (default: the file name without extensions)")
	}
	fs.BoolVar(&gf.undirected, "undirected", false, "store each edge of --graph both ways (SNAP's undirected graphs list each edge once)")
	fs.Var(&gf.columns, "columns", "csv/tsv: the source and target column names, e.g. --columns citing,cited (default: the first two columns)")
	return gf
}

// options checks the flags and returns how to read the graph files. Flags
// that only apply to --graph without it are a usage error.
func (gf *graphFlags) options() (pagerank.LoadOptions, error) {
	for i, p := range gf.paths {
		if p == "-" { // the Unix convention for standard input, read as /dev/stdin
			gf.paths[i] = "/dev/stdin"
		}
	}
	f, err := pagerank.ParseFormat(gf.format)
	if err != nil {
		return pagerank.LoadOptions{}, usageError{"--format: " + err.Error()}
	}
	if len(gf.paths) == 0 {
		for name, set := range map[string]bool{"--format": gf.format != "", "--metadata": gf.metadata != "", "--name": gf.name != "",
			"--undirected": gf.undirected, "--columns": len(gf.columns) > 0} {
			if set {
				return pagerank.LoadOptions{}, usageError{name + " needs --graph PATH"}
			}
		}
	}
	if len(gf.columns) != 0 && len(gf.columns) != 2 {
		return pagerank.LoadOptions{}, usageError{fmt.Sprintf("--columns wants two names (source,target), got %d", len(gf.columns))}
	}
	if gf.metadata != "" { // read after the graph: a missing one is said now, not after loading a large graph
		if st, err := os.Stat(gf.metadata); err != nil {
			return pagerank.LoadOptions{}, usageError{"--metadata: " + err.Error()}
		} else if st.IsDir() {
			return pagerank.LoadOptions{}, usageError{fmt.Sprintf("--metadata %s is a directory, want a file", gf.metadata)}
		}
	}
	return pagerank.LoadOptions{Format: f, Undirected: gf.undirected, Columns: gf.columns}, nil
}

// files is the --graph files of a command that takes several (prlab scale,
// prlab incremental), each with its unique name in the study: its base name
// (graphName), or with the extension where two share one. A missing file, a
// file given twice, a name of the study's own generated graphs (rmat16,
// grid256) or two files of one name are usage errors.
func (gf *graphFlags) files(load pagerank.LoadOptions) ([]study.GraphFile, error) {
	var files []study.GraphFile
	for _, p := range gf.paths {
		if _, err := os.Stat(p); err != nil {
			return nil, usageError{fmt.Sprintf("--graph: %v", err)}
		}
		name := graphName(p)
		if err := checkGraphName(name, "it comes from the file name of --graph "+p+": rename the file"); err != nil {
			return nil, err
		}
		if generatedName.MatchString(name) {
			return nil, usageError{fmt.Sprintf("--graph %s: the name %q is one of the generated graphs'; rename the file", p, name)}
		}
		taken := func(name string) string {
			for _, f := range files {
				if f.Name == name {
					return f.Path
				}
			}
			return ""
		}
		for _, f := range files {
			if same(f.Path, p) {
				return nil, usageError{fmt.Sprintf("--graph %s is given twice", p)}
			}
		}
		if taken(name) != "" { // cites.el and cites.mtx: keep the extension
			name = strings.TrimSuffix(filepath.Base(p), ".gz")
		}
		if other := taken(name); other != "" {
			return nil, usageError{fmt.Sprintf("--graph %s and %s are both named %q; rename one", other, p, name)}
		}
		files = append(files, study.GraphFile{Path: p, Name: name, Load: load})
	}
	return files, nil
}

// graphName is the name a graph file gets by default: its base name without
// .gz and the format extension ("web-Google.txt.gz" is "web-Google").
func graphName(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".gz")
	for {
		ext := filepath.Ext(base)
		if ext == "" || ext == base || !slices.Contains([]string{".txt", ".snap", ".el", ".wel", ".mtx", ".csv", ".tsv"}, strings.ToLower(ext)) {
			return base
		}
		base = strings.TrimSuffix(base, ext)
	}
}

// checkGraphName rejects a name that is empty or taken by a synthetic case
// or the "real" alias (the report's case names must be unique).
func checkGraphName(name, flagHint string) error {
	if name == "" || strings.ContainsAny(name, "/\\\n\t") {
		return usageError{fmt.Sprintf("graph name %q is empty or holds a slash or control character; %s", name, flagHint)}
	}
	if slices.Contains(pagerank.SyntheticCaseNames, name) || name == study.RealCase {
		return usageError{fmt.Sprintf("graph name %q is taken by a synthetic case or the %q alias; %s", name, study.RealCase, flagHint)}
	}
	return nil
}
