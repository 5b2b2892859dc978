package pagerank

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
)

// WriteFormats are the formats WriteEdges writes.
var WriteFormats = []Format{FormatEL, FormatSNAP, FormatMTX, FormatCSV}

// WriteEdges writes the edge list el (n nodes, edges Src[i] -> Dst[i] as
// given: self-loops and duplicates are kept, so reading the file back gives
// the same load line) to w in format f:
//
//   - FormatEL: "U V" per line, 0-based dense indices (GAP's .el; what
//     GAP's converter reads with -f FILE.el);
//   - FormatSNAP: '#' header lines (title, node and edge counts), then
//     "U<TAB>V", 0-based dense indices;
//   - FormatMTX: "%%MatrixMarket matrix coordinate pattern general", the
//     size line "n n m", then "U+1 V+1" (1-based);
//   - FormatCSV: a "source,target" header, then the ids (el.IDs, or the
//     indices when el has none), quoted where needed (RFC 4180).
//
// The integer formats write dense indices, which LoadGraph reads back as the
// same nodes in the same order when every node has an edge (SNAP and CSV
// cannot name an isolated node; .el and .mtx keep n only up to the largest
// index and the size line). title goes into the header comment of snap and
// mtx.
func WriteEdges(w io.Writer, el *EdgeList, f Format, title string) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	n, m := el.Nodes(), len(el.Src)
	var buf []byte
	pair := func(u, v int32, base int64, sep byte) {
		buf = strconv.AppendInt(buf[:0], int64(u)+base, 10)
		buf = append(buf, sep)
		buf = strconv.AppendInt(buf, int64(v)+base, 10)
		buf = append(buf, '\n')
		bw.Write(buf)
	}
	switch f {
	case FormatEL:
		for i := range el.Src {
			pair(el.Src[i], el.Dst[i], 0, ' ')
		}
	case FormatSNAP:
		fmt.Fprintf(bw, "# Directed graph: %s\n# Nodes: %d Edges: %d\n# FromNodeId\tToNodeId\n", title, n, m)
		for i := range el.Src {
			pair(el.Src[i], el.Dst[i], 0, '\t')
		}
	case FormatMTX:
		fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate pattern general\n%% %s: entry (i, j) is the edge i -> j\n%d %d %d\n", title, n, n, m)
		for i := range el.Src {
			pair(el.Src[i], el.Dst[i], 1, ' ')
		}
	case FormatCSV:
		cw := csv.NewWriter(bw)
		id := func(v int32) string {
			if el.IDs != nil {
				return el.IDs[v]
			}
			return strconv.Itoa(int(v) + el.IDBase)
		}
		cw.Write([]string{"source", "target"})
		for i := range el.Src {
			cw.Write([]string{id(el.Src[i]), id(el.Dst[i])})
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			return err
		}
	default:
		return fmt.Errorf("cannot write format %q: want el, snap, mtx or csv", f)
	}
	return bw.Flush()
}
