package report

import (
	"hash/fnv"
	"strings"
)

// Colours of the implementations: one fixed colour per implementation name,
// the same in every chart of every page and notebook (index.html, the scale
// page, pkg/nb), so a line or bar is recognised by its colour alone.
//
// The registered implementations have hand-picked colours (CPU rows in
// greys and browns, GPU families in distinct hues; a relabelled "-reordered"
// variant takes a darker shade of its base design's colour). Any other name
// gets one of the extra colours, chosen by a hash of the name, so it is
// still stable across pages.
var implColours = map[string]string{
	"t0-oracle":                 "#4d4d4d",
	"t1-multicore-f64":          "#8c6d31",
	"t1-multicore-f32":          "#bd9e39",
	"t0-nodangling":             "#b0b0b0",
	"gpu-naive":                 "#d62728",
	"gpu-thread-per-row":        "#ff7f0e",
	"gpu-warp-per-row":          "#2ca02c",
	"gpu-thrust-cub":            "#9467bd",
	"gpu-thrust-cub-nosync":     "#c5b0d5",
	"gpu-cusparse":              "#1f77b4",
	"gpu-t4-bucketed":           "#17becf",
	"gpu-fused":                 "#e377c2",
	"gpu-graph":                 "#7f7f00",
	"gpu-persistent":            "#000080",
	"gpu-cluster":               "#8c564b",
	"gpu-cluster-dsmem":         "#56b4e9",
	"gpu-cusparse-reordered":    "#0b3d66",
	"gpu-fused-reordered":       "#8e1f6f",
	"gpu-t4-bucketed-reordered": "#0b6b73",
	"gpu-hothead":               "#b8860b",
	"gpu-hothead-packed":        "#6b4e00",
}

var extraColours = []string{"#393b79", "#637939", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#636363", "#ad494a"}

// ColourGPU is the colour of stages that belong to no implementation (a
// stage timed alone).
const ColourGPU = "#2a7ab0"

// ImplColour is implementation name's fixed colour ("#rrggbb").
func ImplColour(name string) string {
	if c, ok := implColours[name]; ok {
		return c
	}
	// A grid-family series of the scale study is named "impl (grid)".
	if i := strings.Index(name, " ("); i > 0 {
		if c, ok := implColours[name[:i]]; ok {
			return c
		}
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	return extraColours[h.Sum32()%uint32(len(extraColours))]
}
