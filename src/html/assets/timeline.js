/* SPDX-License-Identifier: MIT */
/* The timeline of Prospect's HTML page (src/html/timeline.c writes its data; docs/html.md):
   one track per process and thread, the sample density over time; dragging across the tracks
   selects a time range (the URL's r=FIRST-END, in slices of the recording) that every view
   aggregates, a click shows the stack the thread was sampled in most at that moment.
   html.js calls prospectTimeline(P) with what it shares (data, names, navigation). */
var prospectTimeline = function (P) {
"use strict";
var T = P.D.tl;
if (!T) return null;
var NS = T.slices, NT = T.thr.length / 4, LABEL = 230, TRACK = 16, AXIS = 22;
var MAX_TRACKS = 400;   /* a system-wide file has thousands of threads: the busiest drawn */
var rS = [], rT = [], rN = [], rC = [], first = new Uint32Array(NS + 1);
var density = null, thrTotal = new Float64Array(NT), thrPid = new Int32Array(NT);
for (var i0 = 0; i0 < NT; i0++) {
  thrTotal[i0] = T.thr[4 * i0 + 3]; thrPid[i0] = P.D.proc[2 * T.thr[4 * i0 + 1]];
}

/* The runs (src/html/timeline.c, write_runs): varints in base64, decoded after the first
   render (prepare) or when first needed (a range, a thread, the view), if that comes first. */
function decode() {
  if (density) return;
  density = new Float32Array(NT * NS);
  var v = P.unpack(T.runs), len = v.length, at = 0, n = 0, slice = 0, thr = 0, node = 0;
  var S = new Uint16Array(len >> 1), Th = new Uint32Array(len >> 1);
  var N = new Uint32Array(len >> 1), C = new Uint32Array(len >> 1);
  while (at < len) {
    var h = v[at++];
    if (h % 2) { node = (h - 1) / 2; slice += v[at++]; thr = v[at++]; }
    else node += h / 2;
    S[n] = slice; Th[n] = thr; N[n] = node; C[n] = v[at++]; n++;
  }
  rS = S.subarray(0, n); rT = Th.subarray(0, n); rN = N.subarray(0, n); rC = C.subarray(0, n);
  for (var i = 0, s = 0; s <= NS; s++) {
    while (i < n && rS[i] < s) i++;
    first[s] = i;
  }
  for (i = 0; i < n; i++) density[rT[i] * NS + rS[i]] += rC[i];
}

/* Off-CPU time (tl.off: src/html/timeline.c, write_waits): ns each thread waited in each
   slice, per thread then slice; OFF[thread * NS + slice]. Null when the file has no
   sched_switch waits. */
var OFF = null, SLICE_NS = (T.span + 1) / NS, WAIT = [70, 90, 170];
if (T.off) {
  OFF = new Float64Array(NT * NS);
  (function (v) {
    for (var i = 0, t = 0, s = 0; i + 2 < v.length; i += 3) {
      if (v[i]) { t += v[i]; s = v[i + 1]; } else s += v[i + 1];
      OFF[t * NS + s] += v[i + 2];
    }
  })(P.unpack(T.off));
}
/* The waits of a track's threads: a band along its top, darker the more of the slice they
   waited (a process: its threads' waits over its threads' time). */
function drawWaits(px, W, V, row, y, w) {
  var dx = w / NS, n = row.thr.length;
  for (var s = 0; s < NS; s++) {
    var ns = 0;
    for (var k = 0; k < n; k++) ns += OFF[row.thr[k] * NS + s];
    var f = Math.min(1, ns / (SLICE_NS * n));
    if (f < 0.02) continue;
    var c = rgb(255 - ((255 - WAIT[0]) * f | 0), 255 - ((255 - WAIT[1]) * f | 0),
                255 - ((255 - WAIT[2]) * f | 0));
    var x0 = LABEL + Math.floor(s * dx), x1 = Math.max(x0 + 1, LABEL + Math.floor((s + 1) * dx));
    for (var yy = Math.max(AXIS, y + 1); yy < Math.min(V, y + 4); yy++)
      for (var x = x0; x < x1 && x < W; x++) px[yy * W + x] = c;
  }
}
/* ns thread t waited in slices [a, b). */
function waited(t, a, b) {
  var ns = 0;
  for (var s = a; s < b; s++) ns += OFF[t * NS + s];
  return ns;
}

function secs(slice) { return slice * (T.span + 1) / NS / 1e9; }
/* state.r as [first, end) slices, or the whole recording. */
function range(state) {
  var m = /^(\d+)-(\d+)$/.exec(state.r || "");
  if (!m) return [0, NS];
  var a = Math.min(+m[1], NS), b = Math.min(+m[2], NS);
  return a < b ? [a, b] : [0, NS];
}
function active(state) { return !!(state.t || state.r); }
/* Adds the selected samples' counts: selfW per node, procW per process; keep(proc, node)
   says whether the other filters keep the sample. */
function accumulate(state, keep, selfW, procW) {
  var r = range(state), tid = state.t === "" ? -1 : +state.t;
  decode();
  for (var i = first[r[0]], e = first[r[1]]; i < e; i++) {
    var t = rT[i], p = T.thr[4 * t + 1];
    if (tid >= 0 && T.thr[4 * t] !== tid) continue;
    if (!keep(p, rN[i])) continue;
    selfW[rN[i]] += rC[i]; procW[p] += rC[i];
  }
}
/* The thread filter's choices: tid and "name (tid)", busiest first. */
function threads() {
  var seen = {}, out = [];
  for (var t = 0; t < NT; t++) {
    var tid = T.thr[4 * t];
    if (seen[tid] !== undefined) { out[seen[tid]][2] += thrTotal[t]; continue; }
    seen[tid] = out.length;
    out.push([String(tid), P.S[T.thr[4 * t + 2]] + " (" + tid + ")", thrTotal[t]]);
  }
  return out.sort(function (a, b) { return b[2] - a[2]; });
}

/* Tracks: each process (its threads added up), then its threads, busiest first. */
function tracks(state) {
  var byProc = {}, out = [], pid = state.p === "" ? -1 : +state.p;
  for (var t = 0; t < NT; t++) {
    if (!thrTotal[t] || (pid >= 0 && thrPid[t] !== pid)) continue;
    var p = T.thr[4 * t + 1], g = byProc[p];
    if (!g) g = byProc[p] = { p: p, w: 0, thr: [] }, out.push(g);
    g.w += thrTotal[t]; g.thr.push(t);
  }
  out.sort(function (a, b) { return b.w - a.w; });
  var rows = [];
  out.some(function (g) {
    if (rows.length >= MAX_TRACKS) return true;
    rows.push({ proc: g.p, thr: g.thr, label: P.S[P.D.proc[2 * g.p + 1]] + " (" +
                P.D.proc[2 * g.p] + ")" });
    g.thr.sort(function (a, b) { return thrTotal[b] - thrTotal[a]; }).forEach(function (t) {
      rows.push({ thr: [t], tid: T.thr[4 * t], label: "  " + P.S[T.thr[4 * t + 2]] + " (" +
                  T.thr[4 * t] + ")" });
    });
    return false;
  });
  rows.hidden = out.length;
  rows.forEach(function (r) { if (r.tid === undefined) rows.hidden--; });
  return rows;
}

/* Colours as the canvas's pixels hold them (RGBA bytes, little-endian words). */
function rgb(r, g, b) { return 255 << 24 | b << 16 | g << 8 | r; }   /* small ints: fast */
var SHADE = rgb(244, 244, 238), PROC = rgb(205, 90, 40), THR = rgb(230, 140, 60),
    CUR = rgb(40, 110, 200);
/* A track's bars into the pixels px (a canvas W wide): each slice's samples scaled to the
   track's peak, straight into the pixels (400 tracks of 1000 slices as fillRect calls took
   a second); then its waits (offcpu) as the band along its top. */
function drawTrack(px, W, V, row, y, w, sel) {
  var sum = row.thr.length === 1 ? density.subarray(row.thr[0] * NS, row.thr[0] * NS + NS)
                                 : new Float32Array(NS), max = 0, s, x, yy;
  if (row.thr.length > 1)
    row.thr.forEach(function (t) { for (s = 0; s < NS; s++) sum[s] += density[t * NS + s]; });
  for (s = 0; s < NS; s++) if (sum[s] > max) max = sum[s];
  var c = row.tid === undefined ? PROC : sel ? CUR : THR, dx = w / NS;
  for (s = 0; s < NS; s++) {
    if (!sum[s]) continue;
    var h = Math.max(1, Math.round((TRACK - 3) * sum[s] / max));
    var x0 = LABEL + Math.floor(s * dx), x1 = Math.max(x0 + 1, LABEL + Math.floor((s + 1) * dx));
    for (yy = Math.max(AXIS, y + TRACK - 1 - h); yy < Math.min(V, y + TRACK - 1); yy++)
      for (x = x0; x < x1 && x < W; x++) px[yy * W + x] = c;
  }
  if (OFF) drawWaits(px, W, V, row, y, w);
}

function axis(ctx, w) {
  ctx.fillStyle = "#333"; ctx.font = "11px sans-serif";
  var total = secs(NS), step = Math.pow(10, Math.floor(Math.log10(total / 5 || 1)));
  if (total / step > 10) step *= 2;
  if (total / step > 10) step *= 2.5;
  for (var t = 0; t <= total; t += step) {
    var x = LABEL + w * t / total;
    ctx.fillRect(x, AXIS - 6, 1, 6);
    ctx.fillText((+t.toPrecision(6)) + " s", x + 2, AXIS - 8);
  }
}

function stackOf(node) {
  var out = [];
  for (var n = node; n; n = P.par[n]) out.push(n);
  return out;
}
/* The node thread t was sampled in most during slice s, or -1. */
function heaviest(t, s) {
  var best = -1, bw = 0;
  for (var i = first[s]; i < first[s + 1]; i++)
    if (rT[i] === t && rC[i] > bw) { bw = rC[i]; best = rN[i]; }
  return best;
}
function showStack(panel, row, s) {
  panel.textContent = "";
  var best = -1, bw = 0, bt = -1;
  row.thr.forEach(function (t) {
    var n = heaviest(t, s);
    if (n < 0) return;
    for (var i = first[s]; i < first[s + 1]; i++)
      if (rT[i] === t && rN[i] === n && rC[i] > bw) { bw = rC[i]; best = n; bt = t; }
  });
  if (best < 0) {
    panel.appendChild(P.el("p", "note", "No sample of " + row.label.trim() + " at " +
                           secs(s).toFixed(3) + " s"));
    return;
  }
  panel.appendChild(P.el("h3", "", "Thread " + T.thr[4 * bt] + " at " + secs(s).toFixed(3) +
                         "-" + secs(s + 1).toFixed(3) + " s: " + bw + " samples in this stack"));
  var ol = P.el("ol", "tlstack");
  stackOf(best).forEach(function (n) {
    var li = P.el("li", "");
    var sp = P.el("span", "name k" + P.KIND[P.nodeKind(n)], P.nodeName(n));
    li.appendChild(sp);
    var d = P.nodeDso(n);
    if (d) li.appendChild(P.el("span", "dso", d));
    ol.appendChild(li);
  });
  panel.appendChild(ol);
}

function widthIn(boxWidth) { return Math.max(300, (boxWidth || 1200) - LABEL - 40); }
function heightOf(rows) {
  return Math.min(AXIS + rows.length * TRACK, Math.max(240, innerHeight - 200));
}
/* The tracks in sight from `top` (px) down, their labels and the axis, into ctx (a canvas
   LABEL + w wide, as high as heightOf(rows)). */
function paint(ctx, rows, w, state, top) {
  var W = LABEL + w, V = ctx.canvas.height;
  var img = ctx.createImageData(W, V), px = new Int32Array(img.data.buffer);
  var a = Math.floor(top / TRACK), b = Math.min(rows.length, Math.ceil((top + V) / TRACK));
  for (var i = a; i < b; i++) {
    var y = AXIS + i * TRACK - top;
    if (i % 2) px.fill(SHADE, Math.max(0, y) * W, Math.min(V, y + TRACK) * W);
    drawTrack(px, W, V, rows[i], y, w, state.t !== "" && rows[i].tid === +state.t);
  }
  ctx.putImageData(img, 0, 0);
  ctx.font = "11px monospace";
  for (i = a; i < b; i++) {
    ctx.fillStyle = rows[i].tid === undefined ? "#000" : "#444";
    ctx.fillText(rows[i].label.slice(0, 32), 4, AXIS + i * TRACK - top + TRACK - 4);
  }
  ctx.clearRect(0, 0, W, AXIS);
  axis(ctx, w);
}
/* A canvas with the first screen of tracks: the one prepare drew for this selection and size
   (taken once), else drawn now. */
var made = null;
function canvasKey(state, rows, w) { return [state.p, state.t, w, heightOf(rows)].join("/"); }
function canvasOf(state, rows, w) {
  var cv;
  if (made && made.key === canvasKey(state, rows, w)) { cv = made.cv; made = null; return cv; }
  cv = document.createElement("canvas");
  cv.width = LABEL + w; cv.height = heightOf(rows);
  cv.setAttribute("data-left", LABEL); cv.setAttribute("data-width", w);   /* for tests */
  paint(cv.getContext("2d"), rows, w, state, 0);
  return cv;
}
/* Decodes the runs and, with draw, draws the view's first screen for the selection in a box
   boxWidth wide, before the view is asked for (html.js prepare, once the page has shown). */
function prepare(state, boxWidth, draw) {
  decode();
  if (!draw) return;
  var rows = tracks(state), w = widthIn(boxWidth);
  made = null;
  made = { key: canvasKey(state, rows, w), cv: canvasOf(state, rows, w) };
}

/* The view: axis, tracks, the selected range shaded; drag selects, a click shows a stack. */
function view(box, state) {
  decode();
  var rows = tracks(state), r = range(state);
  var head = P.el("div", "tlhead");
  head.appendChild(P.el("span", "", "Drag across the tracks to select a time range; click a " +
                        "track for the stack sampled there. " + (state.r ? "Range: " +
                        secs(r[0]).toFixed(3) + "-" + secs(r[1]).toFixed(3) + " s " : "")));
  if (state.r) {
    var clr = P.el("button", "", "All of the recording");
    clr.id = "tl-clear";
    clr.addEventListener("click", function () { P.go({ r: "" }); });
    head.appendChild(clr);
  }
  if (rows.hidden)
    head.appendChild(P.el("span", "note", " " + rows.hidden + " quieter processes not drawn " +
                          "(choose one in the process filter);"));
  if (OFF)
    head.appendChild(P.el("span", "note wait", " Off-CPU waits (sched_switch): the blue band " +
                          "on each track's top, darker the longer the wait" +
                          (T.off_dropped ? " (" + (T.off_dropped / 1e9).toFixed(3) + " s of " +
                           "waits outside the samples' time or of threads without samples " +
                           "not drawn)" : "") + ";"));
  head.appendChild(P.el("span", "note", " " + rows.length + " tracks, " + NS +
                        " slices of " + ((T.span + 1) / NS / 1e6).toFixed(3) + " ms"));
  box.appendChild(head);
  /* Only the tracks in sight are drawn (a canvas as high as the scroller, kept in place while
     its box scrolls): a system-wide file's 400 tracks in one canvas took seconds. */
  var wrap = P.el("div", "tlwrap"), inner = P.el("div", "tlinner");
  var w = widthIn(box.clientWidth);
  var H = AXIS + rows.length * TRACK, V = heightOf(rows);
  var cv = canvasOf(state, rows, w);
  cv.id = "timeline";
  wrap.style.height = V + "px"; inner.style.height = H + "px";
  inner.appendChild(cv);
  var shade = P.el("div", "tlsel"), panel = P.el("div", "tlpanel");
  panel.id = "tl-stack";
  inner.appendChild(shade);
  wrap.appendChild(inner);
  box.appendChild(wrap);
  box.appendChild(panel);
  var ctx = cv.getContext("2d"), top = 0;
  wrap.addEventListener("scroll", function () {
    if (wrap.scrollTop === top) return;
    top = wrap.scrollTop; paint(ctx, rows, w, state, top); shade.style.top = top + "px";
  });
  function place(a, b) {
    shade.style.left = LABEL + w * a / NS + "px"; shade.style.width = w * (b - a) / NS + "px";
    shade.style.height = V + "px"; shade.style.display = "block";
  }
  if (state.r) place(r[0], r[1]); else shade.style.display = "none";
  function sliceAt(x, round) {
    var f = (x - LABEL) * NS / w;
    return Math.max(0, Math.min(NS, round ? Math.round(f) : Math.floor(f)));
  }
  function xOf(e) { return e.clientX - cv.getBoundingClientRect().left; }
  var down = null;
  cv.addEventListener("mousedown", function (e) { down = xOf(e); e.preventDefault(); });
  cv.addEventListener("mousemove", function (e) {
    if (down === null) return;
    var a = sliceAt(Math.min(down, xOf(e)), true), b = sliceAt(Math.max(down, xOf(e)), true);
    if (b > a) place(a, b);
  });
  cv.addEventListener("mouseup", function (e) {
    var x = xOf(e), d = down;
    down = null;
    if (d === null) return;
    if (Math.abs(x - d) < 3) {
      var i = Math.floor((e.clientY - cv.getBoundingClientRect().top - AXIS + top) / TRACK);
      if (i >= 0 && i < rows.length && x >= LABEL) showStack(panel, rows[i], sliceAt(x, false));
      return;
    }
    var a = sliceAt(Math.min(d, x), true), b = sliceAt(Math.max(d, x), true);
    if (b > a) P.go({ r: a + "-" + b });
  });
  return null;
}

return { prepare: prepare, active: active, offcpu: !!OFF, waited: waited, accumulate: accumulate,
         threads: threads, view: view, range: range,
         secs: secs, slices: NS };
};
