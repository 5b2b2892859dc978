package cudabind

import (
	"bufio"
	"math"
	"os"
	"regexp"
	"strconv"
	"testing"
)

// The course's byte figures for its graph (n = 28042, nnz = 314010):
// 3,437,470 bytes per hand-written iteration and 6,173,886 per Thrust + CUB
// iteration, 1.80 times as many.
func TestIterationBytesMatchCourseFigures(t *testing.T) {
	needTable(t)
	cases := []struct {
		name    string
		formula string
		bytes   int64
	}{
		{NameThreadPerRow, "33n + 8nnz + 4", CourseHandBytes},
		{NameWarpPerRow, "33n + 8nnz + 4", CourseHandBytes},
		{NameThrustCUB, "41n + 16nnz + 4", CourseThrustCUBBytes},
		{NameThrustCUBNoSync, "41n + 16nnz + 4", CourseThrustCUBBytes},
		// Not in the course: derived from the kernels the same way.
		{NameNaive, "13n + 12nnz + 4", 13*CourseN + 12*CourseNNZ + 4},
		{NameCusparse, "21n + 12nnz + 4", 21*CourseN + 12*CourseNNZ + 4},
	}
	for _, c := range cases {
		f := mustDesign(t, c.name).BytesFormula()
		if got := f.String(); got != c.formula {
			t.Errorf("%s: formula %q, want %q", c.name, got, c.formula)
		}
		if got := f.Bytes(CourseN, CourseNNZ); got != c.bytes {
			t.Errorf("%s: %d bytes per iteration on the course graph, want %d", c.name, got, c.bytes)
		}
	}
	ratio := float64(mustDesign(t, NameThrustCUB).BytesFormula().Bytes(CourseN, CourseNNZ)) /
		float64(mustDesign(t, NameThreadPerRow).BytesFormula().Bytes(CourseN, CourseNNZ))
	if math.Abs(ratio-1.80) > 0.005 {
		t.Errorf("library/hand traffic ratio %.4f, the course prints 1.80", ratio)
	}
}

// Each stage formula, checked against the course's T4 stage table: its
// printed GB/s times its printed ms must give the stage's bytes on the
// course graph, within the rounding of the printed figures.
func TestStageFormulasMatchCourseStageTable(t *testing.T) {
	rows := []struct {
		stage    int
		ms, gbps float64
	}{
		{stageScale, 0.0028, 118.8},
		{stageSpmvScalar, 0.0332, 82.4},
		{stageSpmvWarp, 0.0273, 100.2},
		{stageSpmvGatherCUB, 0.1524, 34.4},
		{stageDanglingTree, 0.0082, 17.1},
		{stageResidualTree, 0.0051, 43.6},
		{stageResidualAtomic, 0.0583, 3.8},
	}
	for _, r := range rows {
		want := float64(stageDefs[r.stage].Bytes.Bytes(CourseN, CourseNNZ))
		got := r.gbps * r.ms * 1e6
		// Half a unit in the last printed digit of each factor.
		allowed := 0.00005/r.ms + 0.05/r.gbps
		if rel := math.Abs(got-want) / want; rel > allowed {
			t.Errorf("%s: course table implies %.0f bytes, formula %s gives %.0f (off by %.2f%%, rounding allows %.2f%%)",
				stageDefs[r.stage].Name, got, stageDefs[r.stage].Bytes, want, 100*rel, 100*allowed)
		}
	}
	// The course's "copy, one iteration's bytes" row: 542.3 GB/s at 0.0063 ms.
	if got, want := 542.3*0.0063*1e6, float64(CourseHandBytes); math.Abs(got-want)/want > 0.00005/0.0063+0.05/542.3 {
		t.Errorf("iteration copy row implies %.0f bytes, want %.0f", got, want)
	}
}

func TestStagesSumToIterationAndCounts(t *testing.T) {
	needTable(t)
	want := map[string]struct{ launches, syncs int }{
		NameNaive:           {3, 0}, // memset D, atomic dangling kernel, fused pull + combine
		NameThreadPerRow:    {5, 0}, // scale, SpMV, 2 reduction passes, combine
		NameWarpPerRow:      {5, 0},
		NameThrustCUB:       {6, 4}, // 3 transforms + gather sync under thrust::device
		NameThrustCUBNoSync: {6, 0},
		NameCusparse:        {4, 0}, // cusparseSpMV, 2 reduction passes, combine
	}
	impls := stageDesigns()
	if len(impls) != len(want) {
		t.Fatalf("%d implementations, want %d", len(impls), len(want))
	}
	for _, pi := range impls {
		im := designImpl(pi)
		w, ok := want[im.Name()]
		if !ok {
			t.Errorf("unexpected implementation %q", im.Name())
			continue
		}
		if c := im.Costs(nil, 50); c.HostLaunches != float64(w.launches) || c.HostSyncs != float64(w.syncs) {
			t.Errorf("%s: %v launches, %v host syncs per iteration; want %d, %d",
				im.Name(), c.HostLaunches, c.HostSyncs, w.launches, w.syncs)
		}
		var sum int64
		for _, st := range im.Stages() {
			sum += st.Bytes.Bytes(1000, 5000)
		}
		if got := im.BytesFormula().Bytes(1000, 5000); sum != got {
			t.Errorf("%s: stages sum to %d bytes, iteration formula gives %d", im.Name(), sum, got)
		}
		if im.Precision() != "float32" || im.Label() == "" {
			t.Errorf("%s: precision %q label %q", im.Name(), im.Precision(), im.Label())
		}
	}
}

func TestByteFormulaString(t *testing.T) {
	for _, c := range []struct {
		f    ByteFormula
		want string
	}{
		{ByteFormula{12, 0, 0}, "12n"},
		{ByteFormula{8, 8, 4}, "8n + 8nnz + 4"},
		{ByteFormula{0, 0, 0}, "0"},
		{ByteFormula{0, 16, 0}, "16nnz"},
	} {
		if got := c.f.String(); got != c.want {
			t.Errorf("%+v: %q, want %q", c.f, got, c.want)
		}
	}
}

// The Go constants must equal the C header's #defines (they cross the ABI as ints).
func TestConstantsMatchHeader(t *testing.T) {
	defs := headerDefines(t)
	want := map[string]int{
		"PRLAB_ABI_VERSION":               abiVersion,
		"PRLAB_IMPL_NAIVE":                implNaive,
		"PRLAB_IMPL_THREAD_PER_ROW":       implThreadPerRow,
		"PRLAB_IMPL_WARP_PER_ROW":         implWarpPerRow,
		"PRLAB_IMPL_THRUST_CUB":           implThrustCUB,
		"PRLAB_IMPL_CUSPARSE":             implCusparse,
		"PRLAB_IMPL_THRUST_CUB_NOSYNC":    implThrustCUBNoSync,
		"PRLAB_IMPL_COUNT":                len(stageDesigns()),
		"PRLAB_STAGE_SCALE":               stageScale,
		"PRLAB_STAGE_SPMV_SCALAR":         stageSpmvScalar,
		"PRLAB_STAGE_SPMV_WARP":           stageSpmvWarp,
		"PRLAB_STAGE_SPMV_GATHER_CUB":     stageSpmvGatherCUB,
		"PRLAB_STAGE_SPMV_CUSPARSE":       stageSpmvCusparse,
		"PRLAB_STAGE_NAIVE_PULL_COMBINE":  stageNaivePullCombine,
		"PRLAB_STAGE_DANGLING_ATOMIC":     stageDanglingAtomic,
		"PRLAB_STAGE_DANGLING_TREE":       stageDanglingTree,
		"PRLAB_STAGE_DANGLING_SHUFFLE":    stageDanglingShuffle,
		"PRLAB_STAGE_DANGLING_THRUST_CUB": stageDanglingThrustCUB,
		"PRLAB_STAGE_RESIDUAL_ATOMIC":     stageResidualAtomic,
		"PRLAB_STAGE_RESIDUAL_TREE":       stageResidualTree,
		"PRLAB_STAGE_RESIDUAL_SHUFFLE":    stageResidualShuffle,
		"PRLAB_STAGE_RESIDUAL_THRUST_CUB": stageResidualThrustCUB,
		"PRLAB_STAGE_COMBINE":             stageCombine,
		"PRLAB_STAGE_SCALE_THRUST":        stageScaleThrust,
		"PRLAB_STAGE_COMBINE_THRUST":      stageCombineThrust,
		"PRLAB_STAGE_COUNT":               stageCount,
		"PRLAB_REDUCE_TREE":               reduceTree,
		"PRLAB_REDUCE_SHUFFLE":            reduceShuffle,
		"PRLAB_REDUCE_ATOMIC":             reduceAtomic,
		"PRLAB_REDUCE_CLUSTER":            reduceCluster,
		"PRLAB_IMPL_LAYOUT_FIRST":         implLayoutFirst,
		"PRLAB_IMPL_T4_BUCKETED":          implT4Bucketed,
		"PRLAB_IMPL_FUSED":                implFused,
		"PRLAB_IMPL_GRAPH":                implGraph,
		"PRLAB_IMPL_PERSISTENT":           implPersistent,
		"PRLAB_IMPL_CLUSTER":              implCluster,
		"PRLAB_IMPL_LAYOUT_END":           implLayoutEnd,
		"PRLAB_STAGE_LAYOUT_FIRST":        stageLayoutFirst,
		"PRLAB_STAGE_T4_SPMV_THREAD":      stageT4Thread,
		"PRLAB_STAGE_T4_SPMV_WARP":        stageT4Warp,
		"PRLAB_STAGE_T4_SPMV_BLOCK":       stageT4Block,
		"PRLAB_STAGE_T4_COMBINE":          stageT4Combine,
		"PRLAB_STAGE_FUSED_ITERATION":     stageFusedIteration,
		"PRLAB_STAGE_LAYOUT_END":          stageLayoutEnd,
		"PRLAB_PRIM_EMPTY_LAUNCH":         primEmptyLaunch,
		"PRLAB_PRIM_GRAPH_NODE":           primGraphNode,
		"PRLAB_PRIM_GRID_SYNC":            primGridSync,
		"PRLAB_PRIM_CLUSTER_SYNC":         primClusterSync,
		"PRLAB_PRIM_COOP_LAUNCH":          primCoopLaunch,
		"PRLAB_PRIM_COUNT":                primCount,
		"PRLAB_KNOB_TILE_EDGES":           knobTileEdges,
		"PRLAB_KNOB_TILE_ROWS":            knobTileRows,
		"PRLAB_KNOB_BLOCKS_PER_SM":        knobBlocksPerSM,
		"PRLAB_KNOB_GRAPH_K":              knobGraphK,
		"PRLAB_KNOB_CLUSTER_SIZE":         knobClusterSize,
		"PRLAB_KNOB_RESIDENT":             knobResident,
		"PRLAB_KNOB_CLUSTER_MODE":         knobClusterMode,
		"PRLAB_KNOB_COUNT":                knobCount,
		"PRLAB_KNOB_HOT_FIRST":            knobHotFloats,
		"PRLAB_KNOB_HOT_FLOATS":           knobHotFloats,
		"PRLAB_KNOB_HOT_THREADS":          knobHotThreads,
		"PRLAB_KNOB_HOT_OCCUPANCY":        knobHotOccupancy,
		"PRLAB_KNOB_HOT_BLOCKS_PER_SM":    knobHotBlocksPerSM,
		"PRLAB_KNOB_HOT_GROUP":            knobHotGroup,
		"PRLAB_KNOB_HOT_STREAM":           knobHotStream,
		"PRLAB_KNOB_HOT_UNROLL":           knobHotUnroll,
		"PRLAB_KNOB_HOT_TILE":             knobHotTile,
		"PRLAB_KNOB_HOT_END":              knobHotEnd,
		"PRLAB_IMPL_HOTHEAD_FIRST":        implHotHead,
		"PRLAB_IMPL_HOTHEAD":              implHotHead,
		"PRLAB_IMPL_CLUSTER_DSMEM":        implClusterDSMEM,
		"PRLAB_KNOB_DSM_FIRST":            knobDSMFirst,
		"PRLAB_KNOB_DSM_EXCHANGE":         knobDSMExchange,
		"PRLAB_KNOB_DSM_ABLATE":           knobDSMAblate,
		"PRLAB_KNOB_DSM_THREADS":          knobDSMThreads,
		"PRLAB_KNOB_DSM_CLUSTER":          knobDSMCluster,
		"PRLAB_KNOB_DSM_GATHER":           knobDSMGather,
		"PRLAB_KNOB_DSM_BALANCE":          knobDSMBalance,
		"PRLAB_KNOB_DSM_PARTIALS":         knobDSMPartials,
		"PRLAB_KNOB_DSM_PIPELINE":         knobDSMPipeline,
		"PRLAB_KNOB_DSM_ASSIGN":           knobDSMAssign,
		"PRLAB_KNOB_DSM_END":              knobDSMEnd,
		"PRLAB_ERR_UNAVAILABLE":           statusUnavailable,
		"PRLAB_IMPL_HOTHEAD_PACKED":       implHotHeadPacked,
		"PRLAB_IMPL_HOTHEAD_END":          implHotHeadPacked + 1,
		"PRLAB_HOT_SEGMENT":               ColumnSegment,
	}
	checkDefines(t, defs, want)
	// The layout range must not overlap the course's codes.
	if defs["PRLAB_IMPL_COUNT"] > implLayoutFirst || defs["PRLAB_STAGE_COUNT"] > stageLayoutFirst {
		t.Errorf("layout codes overlap the course's: impl count %d, stage count %d", defs["PRLAB_IMPL_COUNT"], defs["PRLAB_STAGE_COUNT"])
	}
	for id, d := range stageDefs {
		if d.ID != id || d.Name == "" {
			t.Errorf("stageDefs[%d] = %+v", id, d)
		}
	}
	if len(StageCatalog()) != stageCount {
		t.Errorf("catalogue has %d stages, want %d", len(StageCatalog()), stageCount)
	}
}

// headerDefines returns the integer #defines of csrc/prlab_cuda.h (the
// constants that cross the ABI as ints).
func headerDefines(t *testing.T) map[string]int {
	t.Helper()
	fh, err := os.Open("csrc/prlab_cuda.h")
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	defs := map[string]int{}
	re := regexp.MustCompile(`^#define (PRLAB_[A-Z0-9_]+) (-?\d+)`)
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			v, _ := strconv.Atoi(m[2])
			defs[m[1]] = v
		}
	}
	return defs
}

// The C table of designs (prlab_designs) holds every Go design's code with
// the family Go reports it under; the stage-by-stage designs list their
// iteration there (the stages api.cu runs), the layout designs only
// layout stages.
func TestDesignTableMatchesC(t *testing.T) {
	if !cgoEnabled {
		t.Skip("the C table of designs is compiled in through cgo")
	}
	defs := headerDefines(t)
	if defs["PRLAB_FAMILY_STAGES"] != int(familyStages) || defs["PRLAB_FAMILY_LAYOUT"] != int(familyLayout) ||
		defs["PRLAB_DESIGN_COUNT"] != len(stageDesigns())+len(layoutDesigns())+len(ownRelabelledDesigns()) {
		t.Errorf("header: families %d, %d; %d designs", defs["PRLAB_FAMILY_STAGES"], defs["PRLAB_FAMILY_LAYOUT"], defs["PRLAB_DESIGN_COUNT"])
	}
	for _, d := range designs {
		if f := designFamily(d.id); f != int(d.family) {
			t.Errorf("%s (code %d): family %d in the C table, %d in Go", d.name, d.id, f, d.family)
		}
		for _, st := range d.stages {
			if layout := st >= stageLayoutFirst && st < stageLayoutEnd; layout != (d.family == familyLayout) || (!layout && (st < 0 || st >= stageCount)) {
				t.Errorf("%s: stage %d in the wrong family", d.name, st)
			}
		}
		if d.family == familyStages && len(d.stages) == 0 {
			t.Errorf("%s: no stages in the C table", d.name)
		}
	}
	if designStages(99) != nil || designFamily(99) != -1 {
		t.Error("a code outside the table has a row")
	}
}

// needTable skips without cgo: the stage lists live in the C table of designs.
func needTable(t *testing.T) {
	t.Helper()
	if !cgoEnabled {
		t.Skip("the stage lists come from the C table of designs, compiled in through cgo")
	}
}

// checkDefines reports every name of want that the header lacks or defines
// to another value.
func checkDefines(t *testing.T, defs, want map[string]int) {
	t.Helper()
	for name, v := range want {
		if got, ok := defs[name]; !ok {
			t.Errorf("%s missing from csrc/prlab_cuda.h", name)
		} else if got != v {
			t.Errorf("%s = %d in the header, %d in Go", name, got, v)
		}
	}
}
