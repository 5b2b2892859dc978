// cluster_dsmem_layout_check.cu — a host-only check of gpu-cluster-dsmem's layout (layoutFor in
// csrc/cluster_dsmem.cu), no GPU needed: one iteration's exchange (send lists, descriptors), ghost vectors,
// gather, piece sums and row sums emulated on the CPU against direct row sums of the CSR, for C = 16 and 8,
// staged, piece-wise and piece-wise bank-ordered, with the shared-memory wavefronts of the gather per mode
// (its bank conflicts counted: the most distinct words in one bank per warp load). Run (nvcc only compiles;
// nothing runs on a device):
//   PRLAB_DSM_LAYOUT_DUMP=/tmp/csr go test ./pkg/cudabind -run TestDumpCSRForLayoutCheck
//   nvcc -std=c++17 -Ipkg/cudabind/csrc pkg/cudabind/testdata/cluster_dsmem_layout_check.cu -o /tmp/check && /tmp/check /tmp/csr/*.bin
#include "../csrc/cluster_dsmem.cu"
#include <cmath>
#include <cstdarg>
namespace prlab {
Failure::Failure(cudaError_t st) : code(2), status{} { (void)st; }
int fail(Err &e, Failure f, const char *fmt, ...) { (void)e; (void)fmt; return f.code; }
int devAlloc(void **p, size_t bytes, const char *name, Err &e) { (void)p; (void)bytes; (void)name; (void)e; return 0; }
int checkDamping(float d, Err &e) { (void)d; (void)e; return 0; }
// the shared host helpers (common.cuh) the host code links against; never called here
int deviceLimits(int, int *, int *, int *, Err &) { return 0; }
bool clusterSchedulable(const void *, const char *, int, int, size_t, std::string *) { return false; }
int checkRunArgs(const Ctx &, float, int, const float *, const float *, const double *, const int *, const int *, Err &) {
  return 0;
}
int checkBenchArgs(float, int, int, int, const float *, Err &) { return 0; }
int copyRunOut(const Ctx &, const float *, int, float *, float *, double *, Err &) { return 0; }
}
using namespace prlab;
// Shared-memory wavefronts of one warp's load of the 4-byte words c (one per
// active lane): the most distinct words in one bank (a repeated word is a broadcast).
static int wavefronts(const std::vector<int> &c) {
  int worst = 0;
  for (int b = 0; b < 32; ++b) {
    std::vector<int> w;
    for (int x : c)
      if ((x & 31) == b && std::find(w.begin(), w.end(), x) == w.end()) w.push_back(x);
    worst = std::max(worst, static_cast<int>(w.size()));
  }
  return worst;
}
static float val(int u) { return 1.0f + (u * 2654435761u % 1000) / 1000.0f; }
int main(int argc, char **argv) {
  int bad = 0;
  for (int ai = 1; ai < argc; ++ai) {
    FILE *f = fopen(argv[ai], "rb");
    int n, nnz;
    if (fread(&n, 4, 1, f) != 1 || fread(&nnz, 4, 1, f) != 1) return 2;
    std::vector<int> rp0(n + 1), col0(nnz);
    if (fread(rp0.data(), 4, n + 1, f) != (size_t)n + 1) return 2;
    if (nnz && fread(col0.data(), 4, nnz, f) != (size_t)nnz) return 2;
    fclose(f);
    // moved 1: the rows moved from the largest senders (PRLAB_KNOB_DSM_ASSIGN 2), 2: the rows moved to cut
    // the exchange (3): the same checks on the relabelled graph with its block bounds, and the permutation
    // checked to be one
    for (int moved : {0, 1, 2})
    for (int C : {16, 8}) {
      std::vector<int> rp = rp0, col = col0, perm;
      int rbM[kMaxC + 1];
      if (moved) {
        splitRows(rp0, col0, n, C, 0, rbM);
        relabelByOwner(rp0, col0, n, C, moved == 2 ? refineCut(rp0, col0, n, C, rbM, 1024) : balanceSends(rp0, col0, n, C, rbM, 1024),
                       rp, col, perm, rbM);
        std::vector<int> seen(n, 0);
        for (int r : perm) seen[r]++;
        for (int r = 0; r < n; ++r)
          if (seen[r] != 1) { bad++; printf("%s: perm holds node %d %d times\n", argv[ai], r, seen[r]); break; }
      }
      for (int mode : {0, 8, 4, 8 + 32, 4 + 32, 8 + 32 + 64, 8 + 32 + 128, 8 + 32 + 128 + 256, 8 + 32 + 128 + 512,
                       8 + 32 + 128 + 1024, 8 + 32 + 128 + 512 + 1024, 8 + 32 + 128 + 512 + 2048,
                       8 + 32 + 128 + 512 + 1024 + 2048, 8 + 32 + 128 + 512 + 2048 + 4096}) { // pieces of 0 (staged), 8, 4;
                                                        // + 32: bank-ordered; + 64: fused; + 128: rows packed into warps; + 256: 16-bit columns (pack16);
                                                        // + 512: heavy rows split over packed warps (packRows split); + 1024: packed warps paired by cost;
                                                        // + 2048: small rows several per lane (packRows ends);
                                                        // + 4096: the tight layout of the fixed-shape kernel (packRows tight)
        const int plen = mode & 15, pieces = plen > 0;
        const bool bankOrder = (mode & 32) != 0, fused = (mode & 64) != 0, packed = (mode & 128) != 0, col16 = (mode & 256) != 0;
        const bool split = (mode & 512) != 0, pair = (mode & 1024) != 0, small = (mode & 2048) != 0, tight = (mode & 4096) != 0;
        std::vector<unsigned> lends;
        Args a;
        std::vector<int> cols, gids, heavy, pnj, prow, pairs, rsp, psr, mrow, pcol, lanes, winfo;
        std::vector<unsigned> rsd;
        std::vector<unsigned short> sidx;
        std::vector<unsigned> desc;
        long long xf;
        std::string why;
        if (!layoutFor(rp, col, n, C, 0, 1, true, plen, bankOrder, packed, a, cols, gids, heavy, pnj, prow, psr, mrow, pcol, lanes, winfo, rsp, rsd, sidx, desc, pairs, xf, why, split, pair, small ? &lends : nullptr, moved ? rbM : nullptr, tight)) {
          printf("%s: %s\n", argv[ai], why.c_str());
          continue;
        }
        std::vector<unsigned short> c16;
        if (col16 && !pack16(a, C, pcol, lanes, winfo, heavy, prow, c16)) {
          printf("%s: ghost vector too large for 16-bit columns\n", argv[ai]);
          continue;
        }
        // the ghost index of packed warp w's slot (j, lane l) of block q, as the kernel reads it
        int errs = 0;
        auto slotCol = [&](int q, int w, int l, int j) {
          const int wbase = winfo[w] >> 8;
          if (col16) return (int)c16[8 * (size_t)(a.lb[q] + 32 * (w - a.wb[q]) + l) + j];
          const int c = pcol[a.pcb[q] + wbase + 32 * j + l];
          if (tight && (c & 3)) { errs++; printf("  tight q%d slot %d: byte offset %d\n", q, j, c); }
          return tight ? c / 4 : c; // tight: byte offsets
        };
        double maxerr = 0;
        // ghost vectors: value of each entry from its global id, built by the exchange emulation
        std::vector<std::vector<float>> ghost(C);
        for (int q = 0; q < C; ++q) {
          int G = a.gb[q + 1] - a.gb[q];
          ghost[q].assign(G, -1e30f);
          int R = a.rb[q + 1] - a.rb[q];
          for (int i = 0; i < R; ++i) ghost[q][i] = val(a.rb[q] + i);
        }
        // exchange: sender s writes its send list into q's ghost at the descriptor's float4
        for (int s = 0; s < C; ++s) {
          int S = a.sb[s + 1] - a.sb[s];
          for (int g = 0; g < S / 4; ++g) {
            unsigned d = desc[a.sb[s] / 4 + g];
            int q = d >> 24, idx4 = d & 0xffffff;
            for (int u = 0; u < 4; ++u) ghost[q][4 * idx4 + u] = val(a.rb[s] + sidx[a.sb[s] + 4 * g + u]);
          }
        }
        // the per-row sends (exchange 4) must fill the same entries with the same values
        {
          std::vector<std::vector<float>> g4(C);
          for (int q = 0; q < C; ++q) g4[q].assign(ghost[q].size(), -1e30f);
          long long sent = 0;
          for (int s = 0; s < C; ++s) {
            int R = a.rb[s + 1] - a.rb[s];
            const int *ptr = &rsp[a.rb[s] + s];
            for (int i = 0; i < R; ++i)
              for (int j = ptr[i]; j < ptr[i + 1]; ++j) {
                unsigned d = rsd[a.rdb[s] + j];
                g4[d >> 24][d & 0xffffff] = val(a.rb[s] + i);
                ++sent;
              }
          }
          if (sent != xf) { errs++; printf("  row sends %lld != exchange %lld\n", sent, xf); }
          for (int q = 0; q < C; ++q) {
            int R = a.rb[q + 1] - a.rb[q];
            for (int j = R; j < (int)ghost[q].size(); ++j)
              if (gids[a.gb[q] + j] >= 0 && g4[q][j] != ghost[q][j]) { if (errs++ < 5) printf("  row sends q%d j%d\n", q, j); }
          }
        }
        // ghost entries with a global id must hold that id's value
        for (int q = 0; q < C; ++q)
          for (int j = 0; j < (int)ghost[q].size(); ++j) {
            int g = gids[a.gb[q] + j];
            if (g >= 0 && ghost[q][j] != val(g)) { if (errs++ < 5) printf("  ghost q%d j%d gid %d holds %g\n", q, j, g, ghost[q][j]); }
          }
        long long chainMax = 0; // packed: the longest warp's estimated gather chain (cycles), the kernel's assignment
        int chainBlock = -1;
        long long wfSum = 0, wfMax = 0, wfIdealMax = 0, localEdges = 0, rowWfMax = 0, fusedRows = 0; // shared-memory wavefronts of the gather's loads of cur (all blocks, slowest block)
        for (int q = 0; q < C; ++q) {
          int r0 = a.rb[q], R = a.rb[q + 1] - r0, e0 = rp[r0], E = rp[r0 + R] - e0;
          long long wf = 0, ideal = 0;
          for (int e = 0; e < E; ++e) localEdges += cols[e0 + e] < R; // the column is one of q's own rows
          if (packed) {
            for (int w = a.wb[q]; w < a.wb[q + 1]; ++w) {
              const int wi = winfo[w], depth = (wi >> 4) & 15;
              for (int j = 0; j < depth; ++j) {
                std::vector<int> c;
                for (int l = 0; l < 32; ++l) {
                  unsigned li = (unsigned)lanes[a.lb[q] + 32 * (w - a.wb[q]) + l];
                  if ((int)((li >> 1) & 15u) > j) c.push_back(slotCol(q, w, l, j));
                }
                if (!c.empty()) wf += wavefronts(c);
                ++ideal;
              }
            }
          } else if (!pieces) {
            for (int b = 0; b < E; b += 32) {
              std::vector<int> c;
              for (int e = b; e < std::min(E, b + 32); ++e) c.push_back(cols[e0 + e]);
              wf += wavefronts(c);
              ++ideal;
            }
          } else {
            const int *nj = &pnj[kPiece * q];
            for (int w0 = 0; w0 < nj[0]; w0 += 32)
              for (int j = 0, st = 0; j < kPiece && w0 < nj[j]; st += nj[j], ++j) {
                std::vector<int> c;
                for (int t = w0; t < std::min(w0 + 32, nj[j]); ++t) c.push_back(cols[e0 + st + t]);
                wf += wavefronts(c);
                ++ideal;
              }
          }
          if (packed) rowWfMax = std::max(rowWfMax, (long long)(R + 31) / 32); // one coalesced load of valS per row
          else { // the row sums' loads of valS: thread per row (light rows; pieces: rows adding their pieces), warp per heavy row
            long long rw = 0;
            for (int i0 = 0; i0 < R; i0 += 32) {
              std::vector<std::vector<int>> lanes;
              for (int l = i0; l < std::min(fused ? a.mc[q] : R, i0 + 32); ++l) { // fused: the added rows only, in list order
                std::vector<int> ad;
                const int i = fused ? mrow[r0 + l] : l;
                if (!pieces) {
                  int d = rp[r0 + i + 1] - rp[r0 + i];
                  if (d <= kLight)
                    for (int e = rp[r0 + i]; e < rp[r0 + i + 1]; ++e) ad.push_back(e - e0);
                } else {
                  int f0 = prow[3 * (r0 + i)], nf = prow[3 * (r0 + i) + 1], x = prow[3 * (r0 + i) + 2];
                  if (nf <= kPieceWarp) {
                    for (int k2 = 0; k2 < nf; ++k2) ad.push_back(f0 + k2);
                    if (x >= 0) ad.push_back(x);
                  }
                }
                lanes.push_back(ad);
              }
              for (size_t j = 0;; ++j) {
                std::vector<int> c;
                for (auto &l : lanes)
                  if (j < l.size()) c.push_back(l[j]);
                if (c.empty()) break;
                rw += wavefronts(c);
              }
            }
            for (int h = a.hb[q]; h < a.hb[q + 1]; ++h) {
              int i = heavy[h];
              int cnt = pieces ? prow[3 * (r0 + i) + 1] : rp[r0 + i + 1] - rp[r0 + i];
              rw += (cnt + 31) / 32;
            }
            rowWfMax = std::max(rowWfMax, rw);
          }
          wfSum += wf;
          wfMax = std::max(wfMax, wf);
          wfIdealMax = std::max(wfIdealMax, ideal);
          std::vector<float> rowsum(R, 0.0f);
          if (packed) { // the longest warp (32 warps: packed warps w, w + 32, .., then heavy rows h = w mod 32):
                        // 64 + 8 depth + 30 shuffle steps per packed warp, 100 per 8 32-edge steps of a heavy row's warp loop
            std::vector<long long> load(32, 0);
            for (int w = a.wb[q]; w < a.wb[q + 1]; ++w) {
              const int wi = winfo[w];
              load[(w - a.wb[q]) % 32] += 64 + 8 * ((wi >> 4) & 15) + 30 * (wi & 15);
            }
            for (int h = a.hb[q]; h < a.hb[q + 1]; ++h)
              load[(h - a.hb[q]) % 32] += 100 * ((prow[3 * (r0 + heavy[h]) + 1] + 255) / 256); // unrolled by 8 (SASS)
            const long long lm = *std::max_element(load.begin(), load.end());
            if (lm > chainMax) chainMax = lm, chainBlock = q;
          }
          if (packed) { // the kernel's arithmetic: lanes' pieces in slot order, segmented shuffles, heads store
            std::vector<int> done(R, 0);
            std::vector<float> chunk; // split: chunk sums in valS slots >= R
            std::vector<int> chunkDone;
            for (int w = a.wb[q]; w < a.wb[q + 1]; ++w) {
              const int wi = winfo[w], wbase = wi >> 8, depth = (wi >> 4) & 15, steps = wi & 15;
              float v[32];
              unsigned li[32];
              for (int l = 0; l < 32; ++l) {
                li[l] = (unsigned)lanes[a.lb[q] + 32 * (w - a.wb[q]) + l];
                int len = (li[l] >> 1) & 15;
                float sum = 0;
                const unsigned en = small ? lends[a.lb[q] + 32 * (w - a.wb[q]) + l] : 0xffffffffu;
                if (tight) { // every slot read, no test: a padded slot holds the ghost entry gmax - 1, which no block owns
                  if (depth != 8) { if (errs++ < 5) printf("  tight q%d warp %d depth %d\n", q, w, depth); }
                  for (int j = 0, k = 0; j < 8; ++j) {
                    const int c = slotCol(q, w, l, j);
                    const int G = a.gb[q + 1] - a.gb[q];
                    if (c >= G && c != a.gmax - 1) { if (errs++ < 5) printf("  tight q%d slot %d column %d (G %d)\n", q, j, c, G); }
                    if (j >= len && c != a.gmax - 1) { if (errs++ < 5) printf("  tight q%d padded slot %d column %d\n", q, j, c); }
                    sum += c < G ? ghost[q][c] : 0.0f;
                    if ((en >> j) & 1u) { // the lane's k-th row ends here: row base + k
                      const int i = (int)(li[l] >> 16) + k++;
                      if (i >= R || (li[l] & 1u)) { errs++; continue; }
                      rowsum[i] = sum; done[i]++; sum = 0;
                    }
                  }
                  v[l] = sum;
                  continue;
                }
                for (int j = 0; j < 8; ++j) {
                  if (j < depth && j < len) {
                    int slot = wbase + 32 * j + l;
                    if (!col16 && slot >= a.pcb[q + 1] - a.pcb[q]) { errs++; break; }
                    sum += ghost[q][slotCol(q, w, l, j)];
                  }
                  const unsigned nb = (en >> (4 * j)) & 15u; // small lanes: the row ending at slot j
                  if (nb != 15u) {
                    const int i = (int)(li[l] >> 16) + (int)nb;
                    if (i >= R || (li[l] & 1u)) { errs++; continue; }
                    rowsum[i] = sum; done[i]++; sum = 0;
                  }
                }
                v[l] = sum;
              }
              for (int st = 0, o = 1; st < steps; ++st, o <<= 1) {
                float nv[32];
                for (int l = 0; l < 32; ++l) nv[l] = v[l] + (l + o < (int)((li[l] >> 8) & 63u) ? v[l + o] : 0.0f);
                for (int l = 0; l < 32; ++l) v[l] = nv[l];
              }
              for (int l = 0; l < 32; ++l)
                if (li[l] & 1u) {
                  int i = li[l] >> 16;
                  if (i >= R && split) {
                    if (i - R >= (int)chunk.size()) chunk.resize(i - R + 1, 0.0f), chunkDone.resize(i - R + 1, 0);
                    chunk[i - R] = v[l]; chunkDone[i - R]++;
                    if (i >= a.emax) errs++;
                    continue;
                  }
                  if (i >= R) { errs++; continue; }
                  rowsum[i] = v[l]; done[i]++;
                }
            }
            if (split) { // the combine: each split row adds its other chunks in order; rows of in-degree 0 are not packed
              if (a.hb[q + 1] != a.hb[q]) { errs++; printf("  split q%d: %d heavy rows\n", q, a.hb[q + 1] - a.hb[q]); }
              for (int i = 0; i < R; ++i) {
                const int x = prow[3 * (r0 + i)], nx = prow[3 * (r0 + i) + 1];
                for (int j = 0; j < nx; ++j) {
                  if (x + j - R < 0 || x + j - R >= (int)chunk.size() || chunkDone[x + j - R] != 1) { errs++; continue; }
                  rowsum[i] += chunk[x + j - R];
                  chunkDone[x + j - R]++;
                }
                if (rp[r0 + i + 1] == rp[r0 + i]) done[i]++; // zeroed once, never packed
              }
              for (size_t j = 0; j < chunk.size(); ++j)
                if (chunkDone[j] != 2) { if (errs++ < 5) printf("  split q%d chunk slot %zu used %d times\n", q, j + R, chunkDone[j]); }
            }
            for (int h = a.hb[q]; h < a.hb[q + 1]; ++h) {
              int i = heavy[h], b = prow[3 * (r0 + i)], d = prow[3 * (r0 + i) + 1];
              float sum = 0; for (int j = 0; j < d; ++j) sum += ghost[q][pcol[a.pcb[q] + b + j]];
              rowsum[i] = sum; done[i]++;
            }
            for (int i = 0; i < R; ++i)
              if (done[i] != 1) { if (errs++ < 5) printf("  packed q%d row %d written %d times\n", q, i, done[i]); }
            if (a.pcb[q + 1] - a.pcb[q] > a.emax || 32 * (a.wb[q + 1] - a.wb[q]) > a.lmax || R > a.emax) { errs++; printf("  packed q%d sizes\n", q); }
          } else if (!pieces) {
            for (int i = 0; i < R; ++i)
              for (int e = rp[r0 + i]; e < rp[r0 + i + 1]; ++e) rowsum[i] += ghost[q][cols[e]];
          } else {
            const int *nj = &pnj[kPiece * q];
            int np = nj[0];
            std::vector<float> part(np);
            for (int t = 0; t < np; ++t) {
              float s = 0; int slot = t;
              for (int j = 0; j < kPiece; ++j) { if (t < nj[j]) { if (slot >= E) { errs++; break; } s += ghost[q][cols[e0 + slot]]; } slot += nj[j]; }
              part[t] = s;
            }
            int sumnj = 0; for (int j = 0; j < kPiece; ++j) sumnj += nj[j];
            if (sumnj != E) { errs++; printf("  q%d slots %d != edges %d\n", q, sumnj, E); }
            for (int i = 0; i < R; ++i) {
              int f0 = prow[3 * (r0 + i)], nf = prow[3 * (r0 + i) + 1], x = prow[3 * (r0 + i) + 2];
              float s = 0; for (int k = 0; k < nf; ++k) s += part[f0 + k]; if (x >= 0) s += part[x];
              rowsum[i] = fused ? -1e30f : s;
            }
            if (fused) { // each row finished once: by its only piece (psr), in the added rows (mrow), or as a heavy row
              std::vector<int> done(R, 0);
              for (int t = 0; t < np; ++t) {
                int i = psr[e0 + t];
                if (i >= 0) { done[i]++; rowsum[i] = part[t]; }
              }
              for (int j = 0; j < a.mc[q]; ++j) {
                int i = mrow[r0 + j];
                int f0 = prow[3 * (r0 + i)], nf = prow[3 * (r0 + i) + 1], x = prow[3 * (r0 + i) + 2];
                float s = 0; for (int k = 0; k < nf; ++k) s += part[f0 + k]; if (x >= 0) s += part[x];
                rowsum[i] = s;
                done[i]++;
              }
              for (int h = a.hb[q]; h < a.hb[q + 1]; ++h) {
                int i = heavy[h];
                int f0 = prow[3 * (r0 + i)], nf = prow[3 * (r0 + i) + 1], x = prow[3 * (r0 + i) + 2];
                float s = 0; for (int k = 0; k < nf; ++k) s += part[f0 + k]; if (x >= 0) s += part[x];
                rowsum[i] = s;
                done[i]++;
              }
              for (int i = 0; i < R; ++i)
                if (done[i] != 1) { if (errs++ < 5) printf("  q%d row %d finished %d times\n", q, i, done[i]); }
              if (a.mc[q] > a.mmax || np > a.pmax) { errs++; printf("  q%d: %d added rows (max %d), %d pieces (max %d)\n", q, a.mc[q], a.mmax, np, a.pmax); }
              fusedRows += R - a.mc[q] - (a.hb[q + 1] - a.hb[q]);
            }
            // heavy list = rows with nf > kPieceWarp
            int hc = 0; for (int i = 0; i < R; ++i) hc += prow[3 * (r0 + i) + 1] > kPieceWarp;
            if (hc != a.hb[q + 1] - a.hb[q]) { errs++; printf("  q%d heavy %d vs %d\n", q, hc, a.hb[q+1]-a.hb[q]); }
          }
          for (int i = 0; i < R; ++i) {
            double ref = 0;
            for (int e = rp[r0 + i]; e < rp[r0 + i + 1]; ++e) ref += val(col[e]);
            double err = fabs(rowsum[i] - ref) / (fabs(ref) + 1e-30);
            if (ref == 0) err = fabs(rowsum[i]);
            maxerr = std::max(maxerr, err);
            if (err > 1e-4) { if (errs++ < 5) printf("  q%d row %d sum %g ref %g\n", q, i, rowsum[i], ref); }
          }
        }
        int maxSend = 0;
        for (int q = 0; q < C; ++q) maxSend = std::max(maxSend, a.sb[q + 1] - a.sb[q]);
        printf("%s%s C=%d: the largest sender %d floats, rows per block <= %d\n", argv[ai], moved ? " (rows moved)" : "", C, maxSend, a.rmax);
        for (int q = 0; tight && q < C; ++q) // the zero entry: beyond every block's ghost vector
          if (a.gb[q + 1] - a.gb[q] > a.gmax - 1) { errs++; printf("  tight q%d ghost %d reaches gmax - 1 = %d\n", q, a.gb[q + 1] - a.gb[q], a.gmax - 1); }
        printf("%-28s C=%2d pieces of %d%s%s%s%s%s%s longest packed warp chain ~%lld cycles (block %d), exchange %lld floats gmax %d: gather wavefronts %lld (slowest block %lld, its warp loads %lld), row sums' wavefronts (slowest block) %lld, local edges %.3f, rows finished by their piece %.3f, shared memory per block %zu B (the largest: per-row sends, warp partials), max rel err %.2e, %d errors\n",
               argv[ai], C, plen, bankOrder ? " bank-ordered" : "", fused ? " fused" : "", packed ? (col16 ? " packed col16" : " packed") : "",
               split ? " split" : "", pair ? " paired" : "", small ? (tight ? " small lanes tight" : " small lanes") : "", chainMax, chainBlock, xf, a.gmax, wfSum, wfMax, wfIdealMax, rowWfMax, nnz ? double(localEdges) / nnz : 0.0, n ? double(fusedRows) / n : 0.0,
               carve(a.gmax, a.smax, a.emax, a.rmax, a.hmax, false, true, pieces, true, true, fused ? a.pmax : 0, fused ? a.mmax : 0,
                     packed ? a.lmax : 0, packed ? a.wmax : 0, col16, small).total,
               maxerr, errs);
        bad += errs;
      }
    }
  }
  return bad ? 1 : 0;
}
