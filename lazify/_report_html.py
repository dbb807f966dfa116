"""``lazify report``'s page: one self-contained HTML file (no network resource: the
styles, the script and the data are inline), written from the data of
:func:`lazify._report.analyse`.

The figures and tables are written here, in HTML, so that they read without scripts;
the script draws the two import trees (an icicle per run on a canvas, one time scale for
both, click to zoom, hover or click for details, a filter by name) from the same data,
embedded as JSON.
"""

from __future__ import annotations

import html
import json

#: rows shown per table before "and N more" (the JSON has them all)
MAX_ROWS = 200

#: the status of a module in a run, in words, and its colour on the page
STATUSES = {
    "startup": ("imported at start-up, before lazify was installed", "#c5cad3"),
    "lazify": ("lazify's own modules", "#b39ddb"),
    "eager": ("imported eagerly", "#5b8def"),
    "resolved": ("deferred, then imported at its first use", "#f0a04b"),
    "not-imported": ("never imported with lazify (deferred and never needed, "
                     "or imported only by such a module)", "#4caf72"),
}


def _e(value) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _num(value) -> str:
    """A figure exactly as the JSON holds it (the test compares the two)."""
    return "n/a" if value is None else str(value)


def _ms(us) -> str:
    return f"{us / 1000:.1f}"


def _short(path) -> str:
    """A file's path as the tables show it: from ``site-packages/`` or the standard
    library's ``pythonX.Y/`` on (the tooltips and the JSON have it whole)."""
    if not path:
        return "?"
    text = str(path).replace("\\", "/")
    for marker in ("/site-packages/", "/dist-packages/"):
        if marker in text:
            return "\u2026" + marker + text.rsplit(marker, 1)[1]
    head, sep, tail = text.rpartition("/lib/python")
    if sep and "/" in tail:
        return "\u2026/" + tail.split("/", 1)[1]
    return text


def _where(site) -> str:
    if not site:
        return ""
    file = _short(site.get("file")) if site.get("file") else site.get("module") or "?"
    return f"{file}:{site.get('line')}"


def _first_use(use) -> str:
    if not use:
        return ""
    return f"{_short(use.get('file'))}:{use.get('line')}"


def _figure(key, value, spread=None, unit="") -> str:
    out = f'<span class="num" data-key="{key}">{_e(_num(value))}</span>{unit}'
    if spread and spread.get("rounds", 0) > 1:
        out += (f'<span class="spread" title="lowest and highest of {spread["rounds"]} rounds">'
                f' ({_e(spread["min"])}&ndash;{_e(spread["max"])})</span>')
    return out


def _headline(report) -> str:
    s, spread = report["summary"], report["spread"]
    speedup = s["speedup"]
    verdict = ""
    if speedup:
        ratios = spread.get("speedup") or {}
        extra = ""
        if ratios.get("rounds", 0) > 1:
            extra = (f' <span class="spread" title="lowest and highest round">'
                     f'({_e(ratios["min"])}&ndash;{_e(ratios["max"])})</span>')
        verdict = (f'<div class="ratio{"" if speedup >= 1 else " slower"}" title="the median of '
                   f'the rounds\' own ratios, plain / lazy"><span class="num" data-key="speedup">'
                   f'{_e(speedup)}</span>&times; {"faster" if speedup >= 1 else "(slower)"} with '
                   f'lazify{extra}</div>')
    cards = [
        ("Start-up time", "ms",
         [("plain", _figure("time_plain_ms", s["time_plain_ms"], spread["time_ms"]["plain"], " ms")),
          ("lazy", _figure("time_lazy_ms", s["time_lazy_ms"], spread["time_ms"]["lazy"], " ms"))],
         verdict),
        ("Modules imported", "",
         [("plain", _figure("modules_plain", s["modules_plain"])),
          ("lazy", _figure("modules_lazy", s["modules_lazy"]))], ""),
        ("Peak memory (RSS)", "MiB",
         [("plain", _figure("peak_rss_plain_mib", s["peak_rss_plain_mib"],
                            spread["peak_rss_mib"]["plain"], " MiB")),
          ("lazy", _figure("peak_rss_lazy_mib", s["peak_rss_lazy_mib"],
                           spread["peak_rss_mib"]["lazy"], " MiB"))], ""),
        ("Import time (-X importtime)", "ms",
         [("plain", _figure("import_time_plain_ms", s["import_time_plain_ms"],
                            spread["import_time_ms"]["plain"], " ms")),
          ("lazy", _figure("import_time_lazy_ms", s["import_time_lazy_ms"],
                           spread["import_time_ms"]["lazy"], " ms"))], ""),
        ("Deferred imports", "",
         [("deferred", _figure("deferred", s["deferred"])),
          ("resolved", _figure("resolved", s["resolved"])),
          ("never needed", _figure("never_needed", s["never_needed"]))], ""),
    ]
    parts = []
    for title, _unit, rows, extra in cards:
        body = "".join(f'<div class="row"><span class="label">{_e(label)}</span> {value}</div>'
                       for label, value in rows)
        parts.append(f'<div class="card"><h3>{_e(title)}</h3>{body}{extra}</div>')
    return '<section class="headline">' + "".join(parts) + "</section>"


def _plural(count, word) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def _rounds(rounds) -> str:
    """The meta line's rounds: ``--rounds 0`` timed nothing and traced once."""
    return f"{_plural(rounds, 'round')} per run" if rounds else "no timed rounds, 1 traced"


def _status(report) -> str:
    s = report["summary"]
    if s["ok"]:
        return (f'<div class="status ok" data-ok="1">Both runs exited with status '
                f'{_e(s["exit_plain"])} and printed the same ({_e(report["output"]["compared"])} '
                f'compared over {_e(_plural(s["rounds"] or 1, "round"))} each).</div>')
    items = "".join(f"<li>{_e(p)}</li>" for p in report["problems"])
    return f'<div class="status bad" data-ok="0"><strong>Problems</strong><ul>{items}</ul></div>'


def _differences(report) -> str:
    diffs = report["output"]["differences"]
    if not diffs:
        if report["summary"]["ok"]:
            return ""
        runs = report["runs"]
        return ('<section><h2>What the runs printed on stderr</h2><div class="two">'
                + "".join(f'<div><h4>{mode}</h4><pre>{_e(runs[mode].get("stderr_tail", ""))}</pre></div>'
                          for mode in ("plain", "lazy")) + "</div></section>")
    parts = ['<section><h2>What the runs printed differently</h2>']
    for d in diffs:
        parts.append(f'<h3>{_e(d["what"])}</h3><div class="two"><div><h4>plain</h4>'
                     f'<pre>{_e(str(d["plain"])[-4000:])}</pre></div><div><h4>lazy</h4>'
                     f'<pre>{_e(str(d["lazy"])[-4000:])}</pre></div></div>')
    parts.append("</section>")
    return "".join(parts)


def _table(head: str, rows: list, columns: int, attrs: str = "") -> str:
    """A table of the first :data:`MAX_ROWS` of ``rows`` (``<tr>`` strings) under the
    header cells ``head``, and a last row saying how many more the JSON has."""
    shown = rows[:MAX_ROWS]
    if len(rows) > MAX_ROWS:
        shown.append(f'<tr><td colspan="{columns}">and {len(rows) - MAX_ROWS} more '
                     "(all in the JSON)</td></tr>")
    return (f'<table{attrs}><thead><tr>{head}</tr></thead>'
            f'<tbody>{"".join(shown)}</tbody></table>')


def _eager_row(row) -> str:
    site = row.get("site") or {}
    return (f'<tr><td class="r">{_ms(row["cost_us"])}</td><td><code>{_e(row["module"])}</code></td>'
            f'<td><code>{_e(site.get("statement", ""))}</code></td>'
            f'<td class="where" title="{_e(site.get("file"))}">'
            f'{_e(_where(site) or row["importer"])}</td></tr>')


def _eager_table(report) -> str:
    groups = report["eager"]
    parts = ['<section id="eager"><h2>Imports that stayed eager</h2>'
             "<p>Every module the lazy run still imported during start-up other than at its "
             "first use, under the reason its import stayed eager (the reason codes of "
             "<code>lazify check</code>), with what it cost in that run (its cumulative "
             "<code>-X importtime</code>, its own imports included). Work down this list to "
             "make start-up faster.</p>"]
    if not groups:
        parts.append("<p>None.</p>")
    for i, g in enumerate(groups):
        count = len(g["imports"])
        parts.append(
            f'<details{" open" if i < 4 else ""} data-reason="{_e(g["reason"])}"><summary>'
            f'<code class="reason">{_e(g["reason"])}</code> <span class="cost">{_ms(g["cost_us"])} ms</span>, '
            f'{count} import{"s" if count != 1 else ""}: {_e(g["words"])}</summary>'
            + _table('<th class="r">ms</th><th>module</th><th>statement</th><th>where</th>',
                     [_eager_row(row) for row in g["imports"]], 4,
                     ' class="fixed"><colgroup><col style="width:70px"><col style="width:24%">'
                     '<col style="width:40%"><col></colgroup')
            + "</details>")
    parts.append("</section>")
    return "".join(parts)


def _written_at(d) -> str:
    return (f'<td><code>{_e(d.get("statement"))}</code></td><td class="where" '
            f'title="{_e(d.get("file"))}">{_e(_short(d.get("file")))}:{_e(d.get("line"))}</td>')


def _deferred_tables(report) -> str:
    deferred = report["deferred"]
    s = report["summary"]
    parts = ['<section id="deferred"><h2>Deferred imports</h2>']
    if not deferred:
        parts.append("<p>No record of deferred imports for this run.</p></section>")
        return "".join(parts)
    resolved = [d for d in deferred if d.get("resolved")]
    never = [d for d in deferred if not d.get("resolved")]
    unknown = "unknown (the interpreter resolves native lazy imports)"
    parts.append(f'<details{" open" if len(resolved) <= 40 else ""}><summary><strong>Resolved '
                 f'at their first use ({s["resolved"]})</strong>: the statement, and the line '
                 f'that first used its name</summary>')
    if resolved:
        parts.append(_table(
            "<th>statement</th><th>written at</th><th>first used at</th>",
            [f'<tr>{_written_at(d)}<td class="where" '
             f'title="{_e((d["first_use"] or {}).get("file"))}">'
             f'{_e(_first_use(d["first_use"]) or unknown)}</td></tr>' for d in resolved], 3))
    parts.append(f'</details><details{" open" if len(never) <= 40 else ""}><summary><strong>'
                 f'Never needed ({s["never_needed"]})</strong>: deferred, and never used by this '
                 "run, so its cost is saved. Worth a look: dead code, or a side effect this run "
                 "did not need</summary>")
    if never:
        parts.append(_table("<th>statement</th><th>written at</th>",
                            [f"<tr>{_written_at(d)}</tr>" for d in never], 2))
    parts.append("</details></section>")
    return "".join(parts)


def _legend() -> str:
    return "".join(f'<span class="key"><i style="background:{colour}"></i>{_e(words)}</span>'
                   for _status, (words, colour) in STATUSES.items())


def render(report: dict) -> str:
    """The page, as one string."""
    data = json.dumps({
        "summary": report["summary"],
        "trees": {m: report["runs"][m]["tree"] for m in ("plain", "lazy")},
        "statuses": {k: {"words": w, "colour": c} for k, (w, c) in STATUSES.items()},
        "reasons": {g["reason"]: g["words"] for g in report["eager"]},
    }, separators=(",", ":")).replace("<", "\\u003c")
    command = " ".join(report["command"])
    notes = "".join(f'<p class="note">{_e(n)}</p>' for n in report.get("notes", ()))
    return _PAGE.format(
        title=_e(f"lazify report: {command}"),
        command=_e(command),
        meta=_e(f"Python {report.get('python') or '?'} · mechanism {report.get('mechanism') or '?'} "
                f"· {_rounds(report['summary']['rounds'])} · {report['created']} "
                f"· in {report['cwd']}"),
        status=_status(report),
        notes=notes,
        headline=_headline(report),
        legend=_legend(),
        differences=_differences(report),
        eager=_eager_table(report),
        deferred=_deferred_tables(report),
        data=data,
        style=_STYLE,
        script=_SCRIPT,
    )


_STYLE = """
:root { --fg:#1d2330; --muted:#5c6575; --line:#dde1e8; --bg:#ffffff; --soft:#f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; padding: 16px 24px 40px; font: 14px/1.45 system-ui, -apple-system, "Segoe UI",
       Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 14px; margin: 14px 0 6px; }
code, pre, .where { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; font-size: 12.5px; }
.cmd { background: var(--soft); padding: 2px 6px; border-radius: 4px; }
.meta, .note, .spread, .label { color: var(--muted); }
.status { margin: 12px 0; padding: 8px 12px; border-radius: 6px; }
.status.ok { background: #e8f5ec; border: 1px solid #b7dfc4; }
.status.bad { background: #fdecea; border: 1px solid #f3b7b0; }
.status ul { margin: 4px 0 0; padding-left: 20px; }
.headline { display: flex; flex-wrap: wrap; gap: 12px; margin: 12px 0; }
.card { flex: 1 1 180px; border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; background: var(--soft); }
.card h3 { margin: 0 0 6px; font-size: 13px; color: var(--muted); font-weight: 600; }
.card .row { font-size: 15px; }
.card .num { font-weight: 700; font-size: 18px; }
.card .ratio { margin-top: 4px; font-size: 14px; }
.card .ratio .num { font-size: 16px; color: #1f7a43; }
.card .ratio.slower .num { color: #b3261e; }
.legend { display: flex; flex-wrap: wrap; gap: 6px 16px; margin: 6px 0; color: var(--muted); font-size: 12.5px; }
.key i { display: inline-block; width: 12px; height: 12px; border-radius: 2px; margin-right: 5px; vertical-align: -1px; }
.controls { display: flex; gap: 10px; align-items: center; margin: 8px 0; flex-wrap: wrap; }
.controls input { padding: 4px 8px; border: 1px solid var(--line); border-radius: 4px; min-width: 240px; }
.controls button { padding: 4px 10px; border: 1px solid var(--line); border-radius: 4px; background: var(--soft); cursor: pointer; }
.chart { position: relative; margin: 4px 0 14px; }
.chart h3 { margin: 8px 0 4px; }
.chart canvas { display: block; width: 100%; border: 1px solid var(--line); border-radius: 4px; cursor: pointer; }
#tip { position: fixed; pointer-events: none; background: #1d2330; color: #fff; padding: 6px 9px; border-radius: 5px;
       font-size: 12px; max-width: 520px; display: none; z-index: 10; white-space: pre-wrap; }
#details { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; background: var(--soft); min-height: 38px;
           white-space: pre-wrap; font-size: 13px; }
table { border-collapse: collapse; width: 100%; margin: 4px 0 10px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--muted); font-weight: 600; }
td.r, th.r { text-align: right; width: 70px; font-variant-numeric: tabular-nums; }
td.where { color: var(--muted); word-break: break-all; }
table.fixed { table-layout: fixed; } table.fixed td { overflow-wrap: anywhere; }
details { margin: 6px 0; }
summary { cursor: pointer; padding: 3px 0; }
summary .reason { font-weight: 700; }
summary .cost { font-weight: 700; }
.two { display: flex; gap: 12px; } .two > div { flex: 1; min-width: 0; }
pre { background: var(--soft); padding: 8px; overflow: auto; max-height: 300px; }
#errors { color: #b3261e; }
"""

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<header>
<h1>lazify report</h1>
<div><code class="cmd">{command}</code></div>
<div class="meta">{meta}</div>
</header>
{status}
{notes}
{headline}
<section id="trees">
<h2>Import tree, plain and lazy</h2>
<p class="meta">Each box is one module import from <code>-X importtime</code>, drawn inside the
import that caused it, its width its cumulative time, in the order the imports ran;
both runs on one time scale. Hover for details, click to zoom into an import and see
it below, click the background or press Esc to zoom out; <code>#module=NAME</code> at the
end of the address opens the page on one module.</p>
<div class="legend">{legend}</div>
<div class="controls"><input id="filter" type="search" placeholder="highlight modules by name"
 aria-label="highlight modules by name"><button id="reset" type="button">zoom out</button>
<span id="found" class="meta"></span></div>
<div class="chart"><h3>plain</h3><canvas id="chart-plain" height="60"></canvas></div>
<div class="chart"><h3>lazy</h3><canvas id="chart-lazy" height="60"></canvas></div>
<div id="details">Click an import for its details.</div>
<div id="tip"></div>
</section>
{eager}
{deferred}
{differences}
<div id="errors"></div>
<script type="application/json" id="lazify-data">{data}</script>
<script>{script}</script>
</body>
</html>
"""

_SCRIPT = r"""
"use strict";
window.addEventListener("error", function (event) {
  var box = document.getElementById("errors");
  box.textContent += "Script error: " + event.message + "\n";
  document.documentElement.setAttribute("data-rendered", "error");
});
(function () {
  var data = JSON.parse(document.getElementById("lazify-data").textContent);
  var ROW = 18, MIN_WIDTH = 0.4;
  var statuses = data.statuses;
  var filter = "";
  var charts = [];
  function ms(us) { return (us / 1000).toFixed(us < 10000 ? 2 : 1) + " ms"; }
  function where(site) { return site ? (site.file || site.module || "?") + ":" + site.line : ""; }

  // Lay a run's tree out: each node gets x0 (µs from the start) and depth; children
  // start where their parent starts, one after the other; the parent's own time last.
  function layout(roots) {
    var nodes = [], maxDepth = 0, x = 0;
    function place(node, start, depth, parent) {
      node.x0 = start; node.depth = depth; node.parent = parent;
      if (depth > maxDepth) maxDepth = depth;
      nodes.push(node);
      var at = start;
      node.children.forEach(function (child) { place(child, at, depth + 1, node); at += child.cum_us; });
    }
    roots.forEach(function (root) { place(root, x, 0, null); x += root.cum_us; });
    return { nodes: nodes, total: x, depth: maxDepth + 1 };
  }

  var trees = { plain: layout(data.trees.plain), lazy: layout(data.trees.lazy) };
  var scale = Math.max(trees.plain.total, trees.lazy.total, 1);

  function describe(node) {
    var lines = [node.name, "cumulative " + ms(node.cum_us) + ", own " + ms(node.self_us)];
    if (node.failed) lines.push("not in sys.modules at exit: a failed import (ImportError caught)");
    var status = statuses[node.status];
    if (status) lines.push(status.words);
    if (node.reason) lines.push("reason: " + node.reason + (data.reasons[node.reason] ? " (" + data.reasons[node.reason] + ")" : ""));
    if (node.site) lines.push("statement: " + (node.site.statement || "") + "  at " + where(node.site));
    if (node.first_use) lines.push("first used at " + (node.first_use.file || "?") + ":" + node.first_use.line);
    else if (node.status === "resolved") lines.push("first use unknown (the interpreter resolves native lazy imports)");
    var chain = [], p = node.parent;
    while (p) { chain.unshift(p.name); p = p.parent; }
    if (chain.length) lines.push("imported under: " + chain.join(" > "));
    return lines.join("\n");
  }

  function Chart(mode) {
    this.mode = mode;
    this.tree = trees[mode];
    this.canvas = document.getElementById("chart-" + mode);
    this.view = [0, scale];
    this.selected = null;
    var self = this;
    this.canvas.addEventListener("mousemove", function (e) { self.hover(e); });
    this.canvas.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    this.canvas.addEventListener("click", function (e) { self.click(e); });
  }
  Chart.prototype.size = function () {
    var ratio = window.devicePixelRatio || 1;
    var width = this.canvas.clientWidth || 800;
    var height = Math.max(this.tree.depth, 1) * ROW + 22;
    this.canvas.style.height = height + "px";
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.width = width; this.height = height; this.ratio = ratio;
  };
  Chart.prototype.px = function (us) { return (us - this.view[0]) / (this.view[1] - this.view[0]) * this.width; };
  Chart.prototype.draw = function () {
    this.size();
    var ctx = this.canvas.getContext("2d");
    ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    ctx.clearRect(0, 0, this.width, this.height);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    var nodes = this.tree.nodes, shown = 0, matched = 0;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      var x0 = this.px(n.x0), x1 = this.px(n.x0 + n.cum_us);
      if (x1 < 0 || x0 > this.width) continue;
      if (x1 - x0 < MIN_WIDTH) continue;
      x0 = Math.max(x0, 0); x1 = Math.min(x1, this.width);
      var y = n.depth * ROW;
      var hit = filter && n.name.toLowerCase().indexOf(filter) >= 0;
      if (hit) matched++;
      ctx.globalAlpha = filter && !hit ? 0.25 : 1;
      ctx.fillStyle = (statuses[n.status] || { colour: "#999" }).colour;
      ctx.fillRect(x0, y, Math.max(x1 - x0 - 0.5, 0.5), ROW - 1);
      if (n === this.selected) {
        ctx.strokeStyle = "#1d2330"; ctx.lineWidth = 2;
        ctx.strokeRect(x0 + 1, y + 1, Math.max(x1 - x0 - 2, 1), ROW - 3);
      }
      if (x1 - x0 > 28) {
        ctx.fillStyle = "#14181f";
        var label = n.name, room = x1 - x0 - 6;
        if (ctx.measureText(label).width > room) {
          while (label.length > 1 && ctx.measureText(label + "\u2026").width > room) label = label.slice(0, -1);
          label += "\u2026";
        }
        ctx.fillText(label, x0 + 3, y + ROW / 2);
      }
      shown++;
    }
    ctx.globalAlpha = 1;
    // the time axis: total of the run, at the bottom
    var end = this.px(this.tree.total);
    ctx.fillStyle = "#5c6575";
    ctx.fillText(this.mode + ": " + ms(this.tree.total) + " of imports, " +
                 data.summary["modules_" + this.mode] + " modules", 4, this.height - 9);
    if (end > 0 && end < this.width) { ctx.fillRect(end, this.height - 20, 1, 20); }
    this.matched = matched;
    return shown;
  };
  Chart.prototype.at = function (e) {
    var rect = this.canvas.getBoundingClientRect();
    var x = e.clientX - rect.left, y = e.clientY - rect.top;
    var depth = Math.floor(y / ROW);
    var us = this.view[0] + x / this.width * (this.view[1] - this.view[0]);
    var nodes = this.tree.nodes;
    for (var i = 0; i < nodes.length; i++) {
      var n = nodes[i];
      if (n.depth === depth && us >= n.x0 && us < n.x0 + n.cum_us) return n;
    }
    return null;
  };
  Chart.prototype.hover = function (e) {
    var n = this.at(e);
    if (!n) { tip.style.display = "none"; return; }
    tip.textContent = describe(n);
    tip.style.display = "block";
    var left = Math.min(e.clientX + 14, window.innerWidth - tip.offsetWidth - 8);
    var top = e.clientY + 14;
    if (top + tip.offsetHeight > window.innerHeight) top = e.clientY - tip.offsetHeight - 10;
    tip.style.left = left + "px"; tip.style.top = top + "px";
  };
  Chart.prototype.click = function (e) { this.select(this.at(e)); };
  Chart.prototype.select = function (n) {
    charts.forEach(function (c) { c.selected = null; });
    if (!n) { this.view = [0, scale]; details.textContent = "Click an import for its details."; }
    else {
      this.selected = n;
      this.view = [n.x0, n.x0 + Math.max(n.cum_us, 1)];
      details.textContent = this.mode + " run: " + describe(n);
    }
    redraw();
  };

  var tip = document.getElementById("tip");
  var details = document.getElementById("details");
  function redraw() {
    var matched = 0;
    charts.forEach(function (c) { c.draw(); matched += c.matched; });
    document.getElementById("found").textContent = filter ? matched + " boxes match" : "";
  }
  charts.push(new Chart("plain"), new Chart("lazy"));
  document.getElementById("filter").addEventListener("input", function (e) {
    filter = e.target.value.trim().toLowerCase(); redraw();
  });
  function reset() { charts.forEach(function (c) { c.view = [0, scale]; c.selected = null; }); redraw(); }
  document.getElementById("reset").addEventListener("click", reset);
  document.addEventListener("keydown", function (e) { if (e.key === "Escape") reset(); });
  window.addEventListener("resize", redraw);
  redraw();
  // report.html#module=NAME opens with NAME selected (the lazy run's, else the plain one's)
  var wanted = /^#module=(.+)$/.exec(window.location.hash);
  if (wanted) {
    var name = decodeURIComponent(wanted[1]);
    charts.slice().reverse().some(function (c) {
      var n = c.tree.nodes.filter(function (node) { return node.name === name; })[0];
      if (n) c.select(n);
      return !!n;
    });
  }
  if (document.documentElement.getAttribute("data-rendered") !== "error")
    document.documentElement.setAttribute("data-rendered", "ok");
})();
"""
