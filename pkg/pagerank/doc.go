// Package pagerank is the domain every other package shares: the graph, what
// an implementation is, and what it returns. It imports no other prlab
// package; the implementations live in pkg/reference (CPU) and pkg/cudabind
// (GPU).
//
// What lives where: graph.go and build_parallel.go, Graph (n nodes, nnz
// edges, as out-edge and in-edge CSR); formats.go (LoadGraph, every Format),
// load.go (the AAN edge list, gzip input), papers.go and export.go, the
// readers, whose errors name file:line, and the writers; params.go and
// result.go, Params, Result, Timing, Stage and the Implementation
// interfaces, with their cancellable forms in context.go; validate.go and
// neartie.go, Validate (the gates every Result is checked by); synthetic.go
// and rmat.go, the course's six cases and Graph500 R-MAT graphs; batch.go,
// batch_random.go and byyear.go, the incremental study's edge batches;
// reorder.go, degree relabelling; topk.go, the top-k table; memguard.go, the
// memory check before a build.
package pagerank
