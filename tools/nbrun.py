#!/usr/bin/python3
"""Execute prlab's GoNB notebooks headlessly and export them to static HTML.

    /usr/bin/python3 tools/nbrun.py [options] notebooks/01-correctness.ipynb ...

For every notebook: inject parameters (papermill-style: a cell tagged
"injected-parameters" right after the cell tagged "parameters", whose Go
`var` declarations replace the defaults), execute it with nbclient on the
GoNB kernel (kernel spec "gonb", written by `make kernel`), fail on any cell
error and on error text GoNB prints into outputs, sign it (so Jupyter trusts
its outputs on this machine), and write

    <out>/<name>.ipynb   the executed notebook
    <out>/<name>.html    nbconvert's HTML export, made offline: every script or
                         stylesheet that would load from outside the page is
                         removed (CDN or file:// URLs), so the page works
                         anywhere offline, from a clone opened with file://
    <out>/assets/        what every export would otherwise inline (share_assets):
                         the charts' ECharts (pkg/nb.LibraryHTML, 1 MB) and
                         nbconvert's large stylesheets (550 KB), one file each,
                         named by content hash, loaded by relative URL

With --inplace the executed notebook also replaces the source notebook, which
is how the committed notebooks get their outputs; that copy leaves the ECharts
library out (omit_library: 1 MB per notebook in git; running the notebook
loads it again).

Notebooks run in parallel (--jobs, default 2), each in its own process and
kernel. Exit status 0 only when every notebook ran without error.

Uses only Debian's packages: python3-nbclient, jupyter-nbformat,
jupyter-nbconvert (run it with /usr/bin/python3, not a pyenv/venv python).
"""

import argparse
import concurrent.futures
import copy
import hashlib
import json
import os
import re
import subprocess
import sys
import time

# Text that GoNB (or a Go program) writes into outputs when something went
# wrong without the kernel reporting an error status, e.g. a failing `!shell`
# line, a panic in a goroutine after main returned, a failed display.
ERROR_PATTERNS = [
    re.compile(r"^panic: ", re.M),
    re.compile(r"^fatal error: ", re.M),
    re.compile(r"goroutine \d+ \[running\]"),
    re.compile(r"\bexit status [1-9]\d*\b"),
    re.compile(r"^go: .*(?:error|cannot|not found|no required module)", re.M),
    re.compile(r"Failed to (?:execute|run|build|publish)", re.I),
    re.compile(r"Program goimports is not installed"),
    re.compile(r"failed to write to GoNB pipe"),
    re.compile(r"class=\"gonb-err"),
    re.compile(r"(?i)\bcompilation failed\b"),
]


def log(*a):
    print(*a, file=sys.stderr, flush=True)


def go_literal(value):
    """A Go literal for a --param value: numbers and booleans as they are,
    anything else as a Go (JSON-compatible) string literal."""
    if value in ("true", "false"):
        return value
    if re.fullmatch(r"[+-]?\d+", value) or re.fullmatch(r"[+-]?(\d+\.\d*|\.\d+|\d+)([eE][+-]?\d+)?", value):
        return value
    if value.startswith('"') and value.endswith('"'):
        return value
    return json.dumps(value)


def inject_parameters(nb, params, nbformat):
    """Insert (or replace) the injected-parameters cell after the parameters cell."""
    cells = nb.cells
    cells[:] = [c for c in cells if "injected-parameters" not in c.get("metadata", {}).get("tags", [])]
    if not params:
        return
    idx = None
    for i, c in enumerate(cells):
        if "parameters" in c.get("metadata", {}).get("tags", []):
            idx = i
            break
    if idx is None:
        raise SystemExit("notebook has no cell tagged 'parameters' to override")
    lines = ["// Parameters injected by tools/nbrun.py --param (they replace the defaults above).", "var ("]
    for name, value in params:
        lines.append("\t%s = %s" % (name, go_literal(value)))
    lines.append(")")
    cell = nbformat.v4.new_code_cell("\n".join(lines))
    cell.metadata["tags"] = ["injected-parameters"]
    cells.insert(idx + 1, cell)


def output_text(out):
    parts = []
    if out.get("output_type") == "stream":
        parts.append(out.get("text", ""))
    elif out.get("output_type") == "error":
        parts.append("%s: %s" % (out.get("ename"), out.get("evalue")))
    else:
        data = out.get("data", {})
        for mime in ("text/plain", "text/markdown"):
            if mime in data:
                v = data[mime]
                parts.append("".join(v) if isinstance(v, list) else v)
        # GoNB's HTML error reports; do not scan other HTML (it holds ECharts).
        html = data.get("text/html", "")
        html = "".join(html) if isinstance(html, list) else html
        if "gonb-err" in html or html.startswith('<pre style="white-space: pre-wrap;">'):
            parts.append(html)
    return "".join(parts)


def scan_errors(nb):
    problems = []
    for i, c in enumerate(nb.cells):
        if c.cell_type != "code":
            continue
        for out in c.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append("cell %d: %s: %s" % (i, out.get("ename"), out.get("evalue")))
                continue
            text = output_text(out)
            for pat in ERROR_PATTERNS:
                m = pat.search(text)
                if m:
                    line = text[max(0, m.start() - 80): m.end() + 160].strip().replace("\n", " | ")
                    problems.append("cell %d: output matches %r: %s" % (i, pat.pattern, line))
                    break
    return problems


# A script or stylesheet loaded from anywhere but the page itself: the network
# (CDN) or, as Debian's nbconvert patches its templates, file:///usr/share/...
# (RequireJS, MathJax), which another machine does not have.
EXTERNAL = r"(?:(?:https?:)?//|file:)"
OFFLINE_TAGS = [
    re.compile(r"<script[^>]*\bsrc\s*=\s*[\"']?" + EXTERNAL + r"[^>]*>\s*</script>", re.I),
    re.compile(r"<link[^>]*\bhref\s*=\s*[\"']?" + EXTERNAL + r"[^>]*>", re.I),
]


def make_offline(html):
    """Remove every tag that would load a script or stylesheet from outside the
    page (nbconvert's templates reference RequireJS and MathJax). The notebooks
    write formulas in plain text, so nothing needs MathJax; the charts' ECharts
    comes with the outputs (share_assets moves it to a file beside the page)."""
    removed = 0
    for pat in OFFLINE_TAGS:
        html, n = pat.subn("", html)
        removed += n
    left = re.findall(r"<(?:script|link|img|iframe)[^>]*\b(?:src|href)\s*=\s*[\"']?" + EXTERNAL + r"[^\"' >]*", html, re.I)
    return html, removed, left


# The <script> element of pkg/nb.LibraryHTML that holds ECharts (its
# LibraryAttr): the same bytes in every notebook.
LIBRARY_SCRIPT = re.compile(r"<script\b[^>]*\bdata-prlab-echarts\b[^>]*>(.*?)</script>", re.S | re.I)
# What the committed notebook holds instead: pkg/nb.LibraryOmittedFlag, so the
# setup cell's status line says why the charts stay blank when trusted.
LIBRARY_OMITTED = '<script type="text/javascript">window.prlabEChartsOmitted = true;</script>'
# nbconvert's stylesheets longer than this (the JupyterLab theme, 536 KB, and
# nbconvert's own, 15 KB) go to a shared file; small ones stay in the page.
STYLE_INLINE_MAX = 8 * 1024
STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S | re.I)
ASSETS = "assets"


def write_asset(outdir, stem, ext, text):
    """Write text to OUTDIR/assets/STEM-HASH.EXT (HASH: the first 12 hex digits
    of its SHA-256, so parallel jobs write the same file and a changed library
    or template gets a new name) unless it is there; return its URL relative
    to OUTDIR."""
    data = text.encode("utf-8")
    name = "%s-%s.%s" % (stem, hashlib.sha256(data).hexdigest()[:12], ext)
    path = os.path.join(outdir, ASSETS, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    try:
        with open(path, "rb") as f:
            if f.read() == data:
                return ASSETS + "/" + name
    except FileNotFoundError:
        pass
    tmp = "%s.tmp%d" % (path, os.getpid())
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, path)
    return ASSETS + "/" + name


def share_assets(html, outdir):
    """Move the large inline parts of an export into OUTDIR/assets: ECharts
    (pkg/nb.LibraryHTML's element) becomes <script src>, every stylesheet over
    STYLE_INLINE_MAX bytes a <link>. Both load from file:// too, so the page
    still works offline from a clone. Returns the page and the asset URLs."""
    urls = []

    def script(m):
        url = write_asset(outdir, "prlab-echarts", "js", m.group(1))
        urls.append(url)
        return '<script type="text/javascript" src="%s"></script>' % url

    def style(m):
        if len(m.group(1)) <= STYLE_INLINE_MAX:
            return m.group(0)
        url = write_asset(outdir, "nbconvert", "css", m.group(1))
        urls.append(url)
        return '<link rel="stylesheet" type="text/css" href="%s">' % url

    html = LIBRARY_SCRIPT.sub(script, html)
    html = STYLE.sub(style, html)
    return html, urls


def prune_assets(outdir):
    """Remove the files of OUTDIR/assets that no OUTDIR/*.html loads (an older
    library or template); return their names. Run only when every job has
    written its page (a job writes its assets before its page)."""
    adir = os.path.join(outdir, ASSETS)
    if not os.path.isdir(adir):
        return []
    pages = ""
    for name in os.listdir(outdir):
        if name.endswith(".html"):
            with open(os.path.join(outdir, name), encoding="utf-8") as f:
                pages += f.read()
    gone = []
    for name in sorted(os.listdir(adir)):
        if (ASSETS + "/" + name) not in pages:
            os.remove(os.path.join(adir, name))
            gone.append(name)
    return gone


def omit_library(nb):
    """A copy of the executed notebook nb without the ECharts library in its
    outputs (LIBRARY_SCRIPT replaced by LIBRARY_OMITTED): what gets committed.
    Returns the copy and how many outputs changed."""
    nb = copy.deepcopy(nb)
    changed = 0
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = data.get("text/html")
            if html is None:
                continue
            html = "".join(html) if isinstance(html, list) else html
            thin, n = LIBRARY_SCRIPT.subn(LIBRARY_OMITTED, html)
            if n:
                data["text/html"] = thin
                changed += 1
    return nb, changed


def export_html(nb, path, template):
    from nbconvert import HTMLExporter

    exporter = HTMLExporter(template_name=template)
    body, _ = exporter.from_notebook_node(nb)
    body, removed, left = make_offline(body)
    if left:
        raise RuntimeError("HTML export still loads from the network: %s" % left[:3])
    body, _ = share_assets(body, os.path.dirname(os.path.abspath(path)))
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        f.write(body)
    os.replace(path + ".tmp", path)
    return removed


# GoNB's %goworkfix logs every replace rule it adds to go.mod into the cell's
# output (a tab, "- Added replace rule for module ... to local directory ...").
# It is build plumbing, not a result: drop_setup_log removes it.
SETUP_LOG = re.compile(r'^\t- Added replace rule for module "[^"\n]*" to local directory "[^"\n]*"\.\n?', re.M)


def drop_setup_log(nb):
    """Remove GoNB's %goworkfix log lines (SETUP_LOG) from every stream
    output, and the stream outputs left empty by it. Runs after scan_errors,
    so an error never hides behind it. Returns how many lines it removed."""
    removed = 0
    for cell in nb.cells:
        kept = []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                text = out.get("text", "")
                if isinstance(text, list):
                    text = "".join(text)
                text, n = SETUP_LOG.subn("", text)
                if n:
                    removed += n
                    if not text:
                        continue
                    out["text"] = text
            kept.append(out)
        if "outputs" in cell:
            cell["outputs"] = kept
    return removed


def relative_paths(nb, root):
    """Write the checkout's absolute path as "." in every output (GoNB's
    %goworkfix line names the directory it joined; nothing else should name
    a machine path): outputs stay the same on every machine. Returns how many
    outputs changed."""
    changed = 0

    def fix(v):
        if isinstance(v, str):
            return v.replace(root + "/", "").replace(root, ".")
        if isinstance(v, list):
            return [fix(x) for x in v]
        return v

    for cell in nb.cells:
        for out in cell.get("outputs", []):
            before = repr(out)
            if "text" in out:
                out["text"] = fix(out["text"])
            for key, val in list(out.get("data", {}).items()):
                out["data"][key] = fix(val)
            if repr(out) != before:
                changed += 1
    return changed


def write_notebook(nb, path, nbformat):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        nbformat.write(nb, f)
    os.replace(path + ".tmp", path)


def run_one(args):
    """Execute one notebook in this process; return 0 on success."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from nbformat.sign import NotebookNotary

    src = args.notebooks[0]
    name = os.path.splitext(os.path.basename(src))[0]
    nb = nbformat.read(src, as_version=4)
    params = [p.split("=", 1) for p in args.param]
    inject_parameters(nb, params, nbformat)
    nbdir = os.path.dirname(os.path.abspath(src))
    client = NotebookClient(
        nb,
        kernel_name=args.kernel,
        timeout=args.timeout,
        startup_timeout=120,
        allow_errors=False,
        record_timing=True,
        resources={"metadata": {"path": nbdir}},
    )
    os.makedirs(args.out, exist_ok=True)
    klog_path = os.path.join(args.out, name + ".kernel.log")
    klog = open(klog_path, "w")  # GoNB logs to stderr; keep it out of the terminal
    t0 = time.monotonic()
    failed = None
    try:
        client.execute(stderr=klog, stdout=klog)
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as e:
        failed = str(e)
    except Exception as e:  # kernel did not start, etc.
        failed = "%s: %s" % (type(e).__name__, e)
    wall = time.monotonic() - t0
    klog.close()
    # GoNB's kernel_info leaves pygments_lexer and codemirror_mode empty, so
    # nbconvert would highlight Go as Python and Jupyter not at all.
    info = nb.metadata.setdefault("language_info", {})
    for key in ("pygments_lexer", "codemirror_mode"):
        if not info.get(key):
            info[key] = "go"
    problems = scan_errors(nb)
    if failed:
        problems.insert(0, failed.strip()[-4000:])

    out_nb = os.path.join(args.out, name + ".ipynb")
    out_html = os.path.join(args.out, name + ".html")
    if problems:
        bad = os.path.join(args.out, name + ".failed.ipynb")
        write_notebook(nb, bad, nbformat)
        log("FAIL %s (%.1f s); executed notebook kept as %s, kernel log %s" % (src, wall, bad, klog_path))
        for p in problems:
            log("  " + p)
        return 1
    drop_setup_log(nb)
    relative_paths(nb, os.path.dirname(nbdir))
    NotebookNotary().sign(nb)
    write_notebook(nb, out_nb, nbformat)
    removed = export_html(nb, out_html, args.template)
    if args.inplace:
        thin, changed = omit_library(nb)
        if changed != 1:
            log("FAIL %s: %d outputs hold the ECharts library (pkg/nb.LibraryHTML, element with %s), want 1 (the setup cell)"
                % (src, changed, "data-prlab-echarts"))
            return 1
        NotebookNotary().sign(thin)
        write_notebook(thin, src, nbformat)
    for stale in (os.path.join(args.out, name + ".failed.ipynb"), klog_path):
        if os.path.exists(stale):
            os.remove(stale)
    cells = [c for c in nb.cells if c.cell_type == "code"]
    log("ok   %s: %d code cells in %.1f s -> %s, %s (%d network tags removed)%s"
        % (src, len(cells), wall, out_nb, out_html, removed, "; source updated" if args.inplace else ""))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--out", default="reports/notebooks", help="directory for executed notebooks and HTML exports")
    ap.add_argument("--kernel", default="gonb", help="kernel spec name (make kernel writes 'gonb')")
    ap.add_argument("--timeout", type=int, default=900, help="seconds one cell may run")
    ap.add_argument("--jobs", type=int, default=2, help="notebooks executed at once")
    ap.add_argument("--param", action="append", default=[], metavar="NAME=VALUE",
                    help="override a variable of the 'parameters' cell (repeatable)")
    ap.add_argument("--inplace", action="store_true", help="also write the executed notebook over the source")
    ap.add_argument("--template", default="lab", help="nbconvert HTML template (lab or classic)")
    args = ap.parse_args()
    for p in args.param:
        if "=" not in p or not re.fullmatch(r"[A-Za-z_]\w*", p.split("=", 1)[0]):
            ap.error("--param wants NAME=VALUE with a Go identifier, got %r" % p)
    for nbpath in args.notebooks:
        if not os.path.isfile(nbpath):
            ap.error("no such notebook: %s" % nbpath)

    if len(args.notebooks) == 1:  # also each job of a run of several: no prune_assets here
        return run_one(args)

    t0 = time.monotonic()
    base = [sys.executable, os.path.abspath(__file__), "--out", args.out, "--kernel", args.kernel,
            "--timeout", str(args.timeout), "--template", args.template]
    for p in args.param:
        base += ["--param", p]
    if args.inplace:
        base.append("--inplace")

    def child(path):
        return path, subprocess.call(base + [path])

    failed = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for path, rc in pool.map(child, args.notebooks):
            if rc != 0:
                failed.append(path)
    wall = time.monotonic() - t0
    ok = len(args.notebooks) - len(failed)
    log("notebooks: %d passed, %d failed in %.1f s (%d at a time)" % (ok, len(failed), wall, args.jobs))
    print("%d passed, %d failed" % (ok, len(failed)))
    if not failed:
        for name in prune_assets(args.out):
            log("removed %s/%s/%s: no page loads it" % (args.out, ASSETS, name))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
