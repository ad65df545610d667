/* SPDX-License-Identifier: MIT */
/* Prospect's HTML profile page (src/html/html.c writes the data; docs/html.md): every view is
   computed from one selection (process, DSO, user/kernel, search) over the call paths; the
   selection lives in the URL hash. Lists are virtualized: only the rows in sight are in the
   DOM. The flame graph is drawn as the SVG output's frames and driven by its script
   (flame.js: init, zoom, search). */
(function () {
"use strict";
var T0 = performance.now();
var D = JSON.parse(document.getElementById("profile-data").textContent);
var S = D.str, M = D.meta;
var KIND = ["root", "comm", "user", "kernel", "inlined", "bracket"];
var NN = D.nnode, NSYM = D.sym.length / 3, NST = D.nst, NP = D.proc.length / 2;
var par = new Uint32Array(NN), what = new Int32Array(NN), fid = new Int32Array(NN);
var firstOcc = new Uint8Array(NN), depthOf = new Uint16Array(NN);
/* Children as one array (node n's are kidList[kidAt[n] .. kidAt[n + 1]]): 400k small arrays
   cost seconds of first render. */
var kidAt = new Uint32Array(NN + 1), kidList = new Uint32Array(NN);
var stProc = new Uint32Array(NST), stNode = new Uint32Array(NST), stW = new Float64Array(NST);
var funcs = null;   /* a function: one name and kind, as the flame graph merges; made when
                      a view first needs it (loadFuncs), not for the first render */
var funcsFresh = false;   /* funcs' self and total are the selection's */
var selfW = new Float64Array(NN), totW = new Float64Array(NN), TOTAL = 0;
/* Periods (D.stp, per stack; none when the weights are periods already): a clock event's are
   ns, shown as the Time column, another event's its count, the Period column. Under a time
   range or a thread (sample counts only), a node's period is its samples times its stacks'
   mean period (meanP). */
var stP = null, meanP = null, selfP = new Float64Array(NN), totP = new Float64Array(NN);
var CLOCK = /^(cpu|task)-clock\b/.test(M.event || "");
var procW = new Float64Array(NP), TL = null;   /* TL: the timeline (timeline.js) */
var state = { v: "sum", p: "", t: "", r: "", d: "", c: "", q: "", f: "", i: "" };
/* ms; first (the first render) and ready (prepare done): since navigation */
var timings = { start: T0, parse: performance.now() - T0, build: 0, timeline: 0, bar: 0, render: 0,
                funcs: 0, first: 0, prepare: 0, ready: 0 };

function nodeName(n) {
  if (n === 0) return "all";
  var w = what[n];
  return w < 0 ? S[-w - 1] : S[D.sym[3 * w]];
}
function nodeKind(n) { return n === 0 ? 0 : what[n] < 0 ? 1 : D.sym[3 * what[n] + 2]; }
function nodeDso(n) { return what[n] >= 0 && n ? S[D.sym[3 * what[n] + 1]] : ""; }

/* The varints of a base64 string (src/html/b64.c): as many numbers as the string holds.
   Uint8Array.fromBase64 where the browser has it (twice as fast as atob's string). */
function unpack(b64) {
  if (Uint8Array.fromBase64) {
    var u = Uint8Array.fromBase64(b64), o = new Float64Array(u.length), k = 0, j = 0;
    while (j < u.length) {
      var d = u[j++], x = d & 0x7f, m = 128;
      while (d & 0x80) { d = u[j++]; x += (d & 0x7f) * m; m *= 128; }
      o[k++] = x;
    }
    return o.subarray(0, k);
  }
  var b = atob(b64), out = new Float64Array(b.length), n = 0, at = 0, len = b.length;
  while (at < len) {
    var c = b.charCodeAt(at++), v = c & 0x7f, mul = 128;
    while (c & 0x80) { c = b.charCodeAt(at++); v += (c & 0x7f) * mul; mul *= 128; }
    out[n++] = v;
  }
  return out.subarray(0, n);
}

function kidsOf(n) { return kidList.subarray(kidAt[n], kidAt[n + 1]); }

function load() {
  var t0 = performance.now(), i, n;
  var v = unpack(D.node), w;   /* per node after the root: step to parent, what */
  for (i = 1; i < NN; i++) {
    par[i] = i - v[2 * i - 2]; w = v[2 * i - 1];
    what[i] = w % 2 ? -(w - 1) / 2 - 1 : w / 2;
  }
  D.node = null;
  for (n = 1; n < NN; n++) kidAt[par[n] + 1]++;
  for (n = 0; n < NN; n++) kidAt[n + 1] += kidAt[n];
  var at = kidAt.slice(0, NN);
  for (n = 1; n < NN; n++) kidList[at[par[n]]++] = n;
  for (n = 1; n < NN; n++) depthOf[n] = depthOf[par[n]] + 1;
  v = unpack(D.st);           /* process step, node (step in the same process), weight */
  for (i = 0, n = 0; i < NST; i++) {
    var p = i ? stProc[i - 1] + v[3 * i] : v[0];
    stProc[i] = p; stNode[i] = i && p === stProc[i - 1] ? stNode[i - 1] + v[3 * i + 1]
                                                      : v[3 * i + 1];
    stW[i] = v[3 * i + 2];
  }
  D.st = null;
  if (D.stp) { stP = unpack(D.stp); D.stp = null; }
  timings.build = performance.now() - t0;
}

/* The functions (funcs, fid per node) and firstOcc: a pass over every node, made when a view
   first needs them. */
function loadFuncs() {
  if (funcs) return funcs;
  var t0 = performance.now(), i, n, funcOf = new Int32Array(8 * S.length).fill(-1);
  funcs = [];
  fid[0] = -1;                /* the root is no function (else function 0 never counts) */
  for (n = 1; n < NN; n++) {
    if (what[n] < 0) { fid[n] = -1; continue; }
    var key = 8 * D.sym[3 * what[n]] + nodeKind(n), f = funcOf[key];   /* name, kind */
    if (f < 0) {
      f = funcOf[key] = funcs.length;
      funcs.push({ id: f, name: nodeName(n), kind: nodeKind(n), dso: nodeDso(n), nodes: [] });
    }
    fid[n] = f; funcs[f].nodes.push(n);
  }
  /* firstOcc: no caller on the path is the same function (recursion counted once). */
  var on = new Int32Array(funcs.length), stack = new Int32Array(2 * NN + 1), sp = 0;
  stack[sp++] = 0;
  while (sp) {
    n = stack[--sp];
    if (n < 0) { n = -n - 1; if (fid[n] >= 0) on[fid[n]]--; continue; }
    if (fid[n] >= 0) { firstOcc[n] = on[fid[n]] === 0 ? 1 : 0; on[fid[n]]++; }
    stack[sp++] = -n - 1;
    for (i = kidAt[n]; i < kidAt[n + 1]; i++) stack[sp++] = kidList[i];
  }
  timings.funcs = performance.now() - t0;
  return funcs;
}

/* ---- the selection ------------------------------------------------------------------- */
function pidOf(p) { return D.proc[2 * p]; }
function compute() {
  var i, n, pid = state.p === "" ? -1 : +state.p;
  selfW.fill(0); totW.fill(0); procW.fill(0); selfP.fill(0);
  function keep(p, n) {
    if (pid >= 0 && pidOf(p) !== pid) return false;
    if (state.d && nodeDso(n) !== state.d) return false;
    if (state.c === "k" && nodeKind(n) !== 3) return false;
    return !(state.c === "u" && nodeKind(n) === 3);
  }
  var all = pid < 0 && !state.d && !state.c;
  if (TL && TL.active(state)) {           /* a range, a thread */
    TL.accumulate(state, keep, selfW, procW);
    if (stP) for (n = 0, meanPeriods(); n < NN; n++) selfP[n] = selfW[n] * meanP[n];
  } else for (i = 0; i < NST; i++) {
    n = stNode[i];
    if (!all && !keep(stProc[i], n)) continue;
    selfW[n] += stW[i]; procW[stProc[i]] += stW[i];
    if (stP) selfP[n] += stP[i];
  }
  for (n = 0; n < NN; n++) { totW[n] = selfW[n]; totP[n] = selfP[n]; }
  for (n = NN - 1; n > 0; n--) { totW[par[n]] += totW[n]; totP[par[n]] += totP[n]; }
  TOTAL = totW[0];
  funcsFresh = false;
}
function meanPeriods() {
  if (meanP) return;
  var w = new Float64Array(NN), i;
  meanP = new Float64Array(NN);
  for (i = 0; i < NST; i++) { meanP[stNode[i]] += stP[i]; w[stNode[i]] += stW[i]; }
  for (i = 0; i < NN; i++) if (w[i]) meanP[i] /= w[i];
}
/* The functions with the selection's self and total (as report --children). */
function funcTotals() {
  if (funcsFresh) return funcs;
  loadFuncs();
  var k = funcs.length, fs = new Float64Array(k), ft = new Float64Array(k), f, n;
  var ps = new Float64Array(k), pt = new Float64Array(k);
  for (n = 1; n < NN; n++) {      /* one pass over the paths, not one closure per function */
    if ((f = fid[n]) < 0) continue;
    fs[f] += selfW[n]; ps[f] += selfP[n];
    if (firstOcc[n]) { ft[f] += totW[n]; pt[f] += totP[n]; }
  }
  for (f = 0; f < k; f++) {
    funcs[f].self = fs[f]; funcs[f].total = ft[f];
    funcs[f].selfP = ps[f]; funcs[f].totalP = pt[f];
  }
  funcsFresh = true;
  return funcs;
}
function searchRe() {
  if (!state.q) return null;
  try { return new RegExp(state.q); } catch (e) { return undefined; }
}
/* The share of the selection under a matching frame (a match inside a match counts once):
   what the flame graph's search gives. */
function matchedShare(re) {
  var sum = 0, n, fm = new Int8Array(loadFuncs().length), under = new Uint8Array(NN);
  for (n = 0; n < funcs.length; n++) fm[n] = re.test(funcs[n].name) ? 1 : 0;
  for (n = 1; n < NN; n++) {        /* a parent's index is below its children's */
    if (under[par[n]]) { under[n] = 1; continue; }
    if (fid[n] >= 0 ? fm[fid[n]] : re.test(nodeName(n))) { under[n] = 1; sum += totW[n]; }
  }
  return TOTAL ? 100 * sum / TOTAL : 0;
}

/* ---- helpers ------------------------------------------------------------------------- */
function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
function pct(v) { return TOTAL ? (100 * v / TOTAL).toFixed(2) + "%" : "0.00%"; }
function num(v) { return M.unit === "ns" ? (v / 1e6).toFixed(3) + " ms" : String(v); }
function period(v) {
  if (!CLOCK) return String(Math.round(v));
  return v >= 1e9 ? (v / 1e9).toFixed(3) + " s" : (v / 1e6).toFixed(3) + " ms";
}
function hashOf(s) {
  return Object.keys(s).filter(function (k) { return s[k] !== ""; }).map(function (k) {
    return k + "=" + encodeURIComponent(s[k]);
  }).join("&");
}
function readHash() {
  var h = location.hash.replace(/^#/, ""),
      s = { v: "sum", p: "", t: "", r: "", d: "", c: "", q: "", f: "", i: "" };
  h.split("&").forEach(function (kv) {
    var i = kv.indexOf("=");
    if (i > 0 && kv.slice(0, i) in s) s[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
  });
  return s;
}
function go(change) {
  var s = {}, k;
  for (k in state) s[k] = state[k];
  for (k in change) s[k] = change[k];
  var h = "#" + hashOf(s);
  if (h !== location.hash) location.hash = h; else apply(s);
}

/* ---- virtualized rows -------------------------------------------------------------- */
var ROW = 20;
function vlist(box, rows, draw, onKey) {
  var inner = el("div", "vinner"), sel = -1;
  box.textContent = ""; box.appendChild(inner); box.tabIndex = 0;
  inner.style.height = rows.length * ROW + "px";
  function paint() {
    var top = box.scrollTop, h = box.clientHeight || 600;
    var a = Math.max(0, Math.floor(top / ROW) - 10);
    var b = Math.min(rows.length, Math.ceil((top + h) / ROW) + 10);
    inner.textContent = "";
    for (var i = a; i < b; i++) {
      var r = draw(rows[i], i);
      r.style.top = i * ROW + "px";
      r.classList.add("row");
      if (i === sel) r.classList.add("sel");
      (function (j) { r.addEventListener("click", function () { api.select(j); }); })(i);
      inner.appendChild(r);
    }
  }
  var api = {
    paint: paint, rows: rows,
    select: function (i) {
      sel = Math.max(0, Math.min(rows.length - 1, i));
      if (sel * ROW < box.scrollTop) box.scrollTop = sel * ROW;
      else if ((sel + 1) * ROW > box.scrollTop + box.clientHeight)
        box.scrollTop = (sel + 1) * ROW - box.clientHeight;
      paint();
    },
    selected: function () { return sel; }
  };
  box.onscroll = paint;
  box.onkeydown = function (e) {
    if (e.key === "ArrowDown") { api.select(sel + 1); e.preventDefault(); }
    else if (e.key === "ArrowUp") { api.select(sel - 1); e.preventDefault(); }
    else if (onKey && sel >= 0 && onKey(e, rows[sel], sel)) e.preventDefault();
  };
  paint();
  return api;
}

/* ---- views ------------------------------------------------------------------------- */
var main, bar, views = {}, open = {}, buOpen = {}, current = null;
/* What the views of other assets (window.prospectViews, e.g. source.js) draw with. */
var page = { el: el, go: go, table: table, num: num,
             state: function () { return state; }, funcs: funcTotals };

function table(head, rows, sortable) {
  var t = el("table", "grid"), tr = el("tr"), order = { k: -1, up: false };
  head.forEach(function (h, k) {
    var th = el("th", h.num ? "num" : "", h.name);
    if (sortable) th.addEventListener("click", function () {
      order.up = order.k === k ? !order.up : !h.num; order.k = k;
      rows.sort(function (a, b) {
        var x = a[k], y = b[k], c = x < y ? -1 : x > y ? 1 : 0;
        return order.up ? c : -c;
      });
      fill();
    });
    tr.appendChild(th);
  });
  t.appendChild(tr);
  var body = el("tbody");
  t.appendChild(body);
  function fill() {
    body.textContent = "";
    rows.forEach(function (r) {
      var row = el("tr");
      head.forEach(function (h, k) {
        row.appendChild(el("td", h.num ? "num" : "", h.fmt ? h.fmt(r[k]) : String(r[k])));
      });
      body.appendChild(row);
    });
  }
  fill();
  return t;
}

views.sum = function (box) {
  var stats = [["Input", M.input || ""], ["Command", M.command || ""], ["Event", M.event || ""],
               ["Duration", M.duration_ns ? (M.duration_ns / 1e9).toFixed(3) + " s" : "unknown"],
               ["CPUs", M.cpus || "unknown"], ["Samples", M.samples],
               ["Distinct stacks", M.distinct_stacks],
               ["Selected", num(TOTAL) + " " + (M.unit === "ns" ? "off-CPU" : "samples")]];
  if (TL && state.r) {
    var r = TL.range(state);
    stats.push(["Time range", TL.secs(r[0]).toFixed(3) + "-" + TL.secs(r[1]).toFixed(3) + " s"]);
  }
  if (state.t) stats.push(["Thread", state.t]);
  box.appendChild(el("h2", "", "Statistics of Run"));
  box.appendChild(table([{ name: "" }, { name: "" }], stats, false));
  var per = {};
  for (var i = 0; i < NP; i++) if (procW[i]) per[i] = procW[i];
  var rows = Object.keys(per).map(function (p) {
    return [pidOf(+p), S[D.proc[2 * p + 1]], per[p], per[p]];
  }).sort(function (a, b) { return b[2] - a[2]; });
  box.appendChild(el("h2", "", "Summary of Processes"));
  var t = table([{ name: "PID", num: 1 }, { name: "Command" },
                 { name: M.unit === "ns" ? "Off-CPU" : "Samples", num: 1, fmt: num },
                 { name: "Share", num: 1, fmt: pct }], rows, true);
  t.id = "processes";
  box.appendChild(t);
  box.appendChild(el("h2", "", "Notes"));
  var ul = el("ul", "notes");
  (M.notes.length ? M.notes : ["none"]).forEach(function (n) { ul.appendChild(el("li", "", n)); });
  box.appendChild(ul);
};

function nameCell(r, name, kind, dso) {
  var s = el("span", "name k" + kind, name);
  if (dso) s.title = dso;
  var re = searchRe();
  if (re && re.test(name)) s.classList.add("match");
  r.appendChild(s);
  if (dso) r.appendChild(el("span", "dso", dso));
}

/* A row: total and self (samples), share, the period of p (a time, where the page has
   periods), the name. */
function treeRow(depth, hasKids, isOpen, tot, self, name, kind, dso, p) {
  var r = el("div");
  r.appendChild(el("span", "c num", num(tot)));
  r.appendChild(el("span", "c num", num(self)));
  r.appendChild(el("span", "c num", pct(tot)));
  if (stP) r.appendChild(el("span", "c num per", period(p)));
  var ind = el("span", "tw", hasKids ? (isOpen ? "\u25be" : "\u25b8") : "");
  ind.style.marginLeft = depth * 14 + "px";
  r.appendChild(ind);
  nameCell(r, name, kind, dso);
  return r;
}

/* The columns' heads, with Time (or Period) after the first three where the page has periods. */
function treeHead(box, cols) {
  var h = el("div", "thead");
  if (stP) cols = cols.slice(0, 3).concat([[CLOCK ? "Time" : "Period", "c num per"]],
                                          cols.slice(3));
  cols.forEach(function (c) { h.appendChild(el("span", c[1], c[0])); });
  box.appendChild(h);
  var b = el("div", "vbox");
  box.appendChild(b);
  return b;
}

var TREE_COLS = [["Total", "c num"], ["Self", "c num"], ["Share", "c num"], ["Function", "h"]];
function toCallers(n) { if (what[n] >= 0) go({ v: "fn", f: nodeName(n) }); }
function sortedKids(n) {
  return Array.prototype.filter.call(kidsOf(n), function (c) { return totW[c] > 0; })
    .sort(function (a, b) { return totW[b] - totW[a]; });
}

views.td = function (box) {
  var b = treeHead(box, TREE_COLS);
  var rows = [];
  (function walk(n, d) {
    sortedKids(n).forEach(function (c) {
      rows.push({ n: c, d: d });
      if (open[c]) walk(c, d + 1);
    });
  })(0, 0);
  var list = vlist(b, rows, function (r) {
    var row = treeRow(r.d, sortedKids(r.n).length > 0, !!open[r.n], totW[r.n], selfW[r.n],
                      nodeName(r.n), KIND[nodeKind(r.n)], nodeDso(r.n), totP[r.n]);
    row.querySelector(".tw").addEventListener("click", function (e) {
      e.stopPropagation(); toggle(r.n);
    });
    row.addEventListener("dblclick", function () { toCallers(r.n); });
    return row;
  }, function (e, r) {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft" || e.key === " ") {
      if ((e.key === "ArrowRight") !== !!open[r.n] || e.key === " ") toggle(r.n);
      return true;
    }
    if (e.key === "Enter" && what[r.n] >= 0) { go({ v: "fn", f: nodeName(r.n) }); return true; }
    return false;
  });
  function toggle(n) {
    var keep = list.selected(); open[n] = !open[n]; render(); current.select(keep);
  }
  return list;
};

/* Bottom-up: each function by the samples taken in it, then its callers; a row holds the
   path nodes it stands for (frontier) and the weight each carries. */
function buKids(front) {
  var by = {}, out = [];
  front.forEach(function (e) {
    var p = par[e[0]];
    if (!p) return;
    var key = nodeName(p) + "\u0000" + nodeKind(p), g = by[key];
    if (!g) g = by[key] = { n: p, w: 0, p: 0, front: [] }, out.push(g);
    g.w += e[1]; g.p += e[2]; g.front.push([p, e[1], e[2]]);
  });
  return out.sort(function (a, b) { return b.w - a.w; });
}
views.bu = function (box) {
  var b = treeHead(box, [["Self", "c num"], ["", "c num"], ["Share", "c num"],
                         ["Function / callers", "h"]]);
  var rows = [];
  var roots = funcTotals().filter(function (f) { return f.self > 0; }).map(function (f) {
    return { n: f.nodes[0], w: f.self, p: f.selfP, key: "f" + f.id,
             front: f.nodes.filter(function (m) { return selfW[m] > 0; })
                           .map(function (m) { return [m, selfW[m], selfP[m]]; }) };
  }).sort(function (a, b) { return b.w - a.w; });
  (function walk(list, d) {
    list.forEach(function (g) {
      g.d = d; rows.push(g);
      if (buOpen[g.key]) walk(buKids(g.front).map(function (c) {
        c.key = g.key + "/" + nodeName(c.n); return c;
      }), d + 1);
    });
  })(roots, 0);
  var list = vlist(b, rows, function (r) {
    var row = treeRow(r.d, !!par[r.front[0][0]], !!buOpen[r.key], r.w, r.d ? 0 : r.w,
                      nodeName(r.n), KIND[nodeKind(r.n)], nodeDso(r.n), r.p);
    row.childNodes[1].textContent = "";
    row.querySelector(".tw").addEventListener("click", function (e) {
      e.stopPropagation(); toggle(r.key);
    });
    row.addEventListener("dblclick", function () { toCallers(r.n); });
    return row;
  }, function (e, r) {
    if (e.key === "ArrowRight" || e.key === "ArrowLeft" || e.key === " ") {
      if ((e.key === "ArrowRight") !== !!buOpen[r.key] || e.key === " ") toggle(r.key);
      return true;
    }
    if (e.key === "Enter" && what[r.n] >= 0) { go({ v: "fn", f: nodeName(r.n) }); return true; }
    return false;
  });
  function toggle(k) {
    var keep = list.selected(); buOpen[k] = !buOpen[k]; render(); current.select(keep);
  }
  return list;
};

/* Functions with self and total (as report --children), and the selected one's callers and
   callees (butterfly). */
function butterfly(box, name) {
  var cs = funcTotals().filter(function (f) { return f.name === name; });
  if (!cs.length) { box.appendChild(el("p", "note", "No function named " + name)); return; }
  var callers = {}, callees = {}, self = 0, tot = 0;
  cs.forEach(function (f) {
    self += f.self; tot += f.total;
    f.nodes.forEach(function (m) {
      if (firstOcc[m]) {
        var p = par[m], k = nodeName(p);
        callers[k] = (callers[k] || 0) + totW[m];
      }
      kidsOf(m).forEach(function (c) {
        callees[nodeName(c)] = (callees[nodeName(c)] || 0) + totW[c];
      });
    });
  });
  box.appendChild(el("h2", "", name));
  box.appendChild(el("p", "", "self " + num(self) + " (" + pct(self) + "), total " + num(tot) +
                     " (" + pct(tot) + ")"));
  if (views.src) {
    var s = el("button", "act", "Source and assembly");
    s.id = "to-src";
    s.addEventListener("click", function () { go({ v: "src", f: name }); });
    box.appendChild(s);
  }
  function part(title, m, id) {
    var rows = Object.keys(m).filter(function (k) { return m[k] > 0; })
      .map(function (k) { return [k, m[k], m[k]]; }).sort(function (a, b) { return b[1] - a[1]; });
    box.appendChild(el("h3", "", title));
    var t = table([{ name: "Function" },
                   { name: M.unit === "ns" ? "Off-CPU" : "Samples", num: 1, fmt: num },
                   { name: "Share", num: 1, fmt: pct }], rows, true);
    t.id = id;
    box.appendChild(t);
  }
  part("Callers", callers, "callers");
  part("Callees", callees, "callees");
}
views.fn = function (box) {
  var split = el("div", "split"), left = el("div", "half"), right = el("div", "half bf");
  split.appendChild(left); split.appendChild(right); box.appendChild(split);
  var b = treeHead(left, TREE_COLS);
  var rows = funcTotals().filter(function (f) { return f.total > 0; })
    .sort(function (a, b) { return b.total - a.total || b.self - a.self; });
  var list = vlist(b, rows, function (f) {
    var r = treeRow(0, false, false, f.total, f.self, f.name, KIND[f.kind], f.dso, f.totalP);
    r.addEventListener("dblclick", function () { go({ f: f.name }); });
    if (f.name === state.f) r.classList.add("cur");
    return r;
  }, function (e, f) {
    if (e.key === "Enter") { go({ f: f.name }); return true; }
    if (e.key === "s" && views.src) { go({ v: "src", f: f.name }); return true; }
    return false;
  });
  if (state.f) butterfly(right, state.f);
  else right.appendChild(el("p", "note",
                            "Double-click a function (or Enter) for its callers and callees."));
  return list;
};

var FRAME_H = 16, TOP = 54, BOTTOM = 34, SVGW = 1200;
var NSVG = "http://www.w3.org/2000/svg";
function colour(name, kind) {   /* the SVG's palettes (src/flame/svg.c), hashed per name */
  var h = 0;
  for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  var a = (h & 0xff) / 255, b = (h >>> 8 & 0xff) / 255;
  if (kind === 0) return "rgb(190,190,190)";
  if (kind === 3) return "rgb(" + (200 + (55 * a | 0)) + "," + (120 + (60 * b | 0)) + ",30)";
  if (kind === 4)
    return "rgb(" + (60 + (50 * a | 0)) + "," + (180 + (50 * b | 0)) + "," +
           (180 + (50 * b | 0)) + ")";
  if (kind === 5) return "rgb(" + (170 + (40 * a | 0)) + "," + (140 + (30 * b | 0)) + ",220)";
  return "rgb(" + (205 + (50 * b | 0)) + "," + (230 * a | 0) + "," + (55 * b | 0) + ")";
}
/* A node's place among its siblings in the flame graph (name in byte order, as the SVG's,
   then kind), from the strings' ranks the page holds (D.ord): numbers, not names, sorted. */
var ORD = null;
function flameKey(n) {
  if (!ORD) ORD = unpack(D.ord);
  var w = what[n];
  return ORD[w < 0 ? -w - 1 : D.sym[3 * w]] * 8 + nodeKind(n);
}
/* Node n's children at least 0.1 px wide (the SVG's rule) in the flame graph's order, each
   with its x (samples from n's left edge): the narrower ones are not drawn but take their place
   (a system-wide root has thousands; sorting them all cost the first drawing). */
function flameKids(n, scale, out) {
  var ks = kidsOf(n), wide = [], thin = [], i, j, c;
  for (i = 0; i < ks.length; i++) {
    c = ks[i];
    (totW[c] * scale >= 0.1 ? wide : thin).push(flameKey(c) * NN + c);   /* ties: by index */
  }
  wide.sort(function (a, b) { return a - b; });
  var before = new Float64Array(wide.length + 1);
  for (i = 0; i < thin.length; i++) {   /* samples of the thin ones before each wide one */
    var lo = 0, hi = wide.length;
    while (lo < hi) { j = (lo + hi) >> 1; if (wide[j] < thin[i]) lo = j + 1; else hi = j; }
    before[lo] += totW[thin[i] % NN];
  }
  for (i = 0, j = 0; i < wide.length; i++) {
    c = wide[i] % NN; j += before[i];
    out.push(c, j); j += totW[c];
  }
}
var colourOf = {};   /* per name and kind */
function escText(t) { return t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
/* The SVG output's frames, placed as flame.js's unzoom places them, as one piece of markup
   (the HTML parser builds 20k elements several times faster than createElementNS calls).
   flame.js gets each frame's numbers and details line from here (init's frames), so a frame
   is a rect and, when wide enough for a label, a text (flame.js's place makes it on a zoom);
   its tooltip is made when first hovered; its corners are in html.css. With state.i, the
   icicle: the root on top (the SVG's --inverted). Returns the graph not yet in the page (el)
   and its frames, for the selection and orientation of the moment (key). */
function buildFlame() {
  var icicle = !!state.i, scale = TOTAL ? (SVGW - 20) / TOTAL : 0, maxd = 0, list = [], kids = [];
  if (TOTAL) (function walk(n, d, x) {
    list.push(n, d, x); if (d > maxd) maxd = d;
    var at = kids.length;
    flameKids(n, scale, kids);
    for (var i = at, e = kids.length; i < e; i += 2) walk(kids[i], d + 1, x + kids[i + 1]);
    kids.length = at;
  })(0, 0, 0);
  var H = TOP + BOTTOM + (maxd + 1) * FRAME_H, unit = M.unit === "ns" ? "ns" : "samples";
  var end = "text-anchor: end", frames = [], out = [
    '<svg xmlns="' + NSVG + '" width="' + SVGW + '" height="' + H + '" viewBox="0 0 ' + SVGW +
    " " + H + '" id="flame" data-total="' + TOTAL + '">',
    '<rect x="0" y="0" width="' + SVGW + '" height="' + H + '" fill="rgb(250,250,245)"/>',
    '<text id="unzoom" class="button hide" x="10" y="22">Reset Zoom</text>',
    '<text id="search" class="button" x="' + (SVGW - 10) + '" y="22" style="' + end +
    '">Search</text>',
    '<text id="matched" x="' + (SVGW - 10) + '" y="' + (H - 12) + '" style="' + end + '"></text>',
    '<text id="details" x="10" y="' + (H - 12) + '"> </text>'];
  for (var i = 0; i < list.length; i += 3) {
    var n = list[i], name = nodeName(n);
    var y = TOP + (icicle ? list[i + 1] : maxd - list[i + 1]) * FRAME_H;
    var x = 10 + list[i + 2] * scale, w = totW[n] * scale, label = fit(name, w);
    var key = name + "\u0000" + nodeKind(n), fill = colourOf[key];
    if (!fill) fill = colourOf[key] = colour(name, nodeKind(n));
    frames.push({ x: list[i + 2], v: totW[n], d: list[i + 1], name: name,
                  title: name + " (" + totW[n] + " " + unit + ", " +
                         (TOTAL ? (100 * totW[n] / TOTAL).toFixed(2) : "0.00") + "%)" });
    out.push('<g class="f"><rect x="' + x.toFixed(2) + '" y="' + y + '" width="' +
             w.toFixed(2) + '" height="' + (FRAME_H - 1) + '" fill="' + fill + '"></rect>' +
             (label ? '<text x="' + (x + 3).toFixed(2) + '" y="' +
             (y + FRAME_H - 5) + '">' + escText(label) + "</text>" : "") + "</g>");
  }
  out.push("</svg>");
  var holder = el("div");
  holder.innerHTML = out.join("");
  return { el: holder.firstChild, frames: frames, key: flameKeyNow() };
}
function flameKeyNow() { return selectionKey() + "/" + (state.i ? "icicle" : ""); }
/* What the numbers of every view depend on (the search only colours). */
function selectionKey() { return [state.p, state.t, state.r, state.d, state.c, TOTAL].join("/"); }
/* The graph prepare made in advance, taken by the first flame graph view of that selection. */
var flameMade = null;
views.flame = function (box) {
  var f = flameMade && flameMade.key === flameKeyNow() ? flameMade : buildFlame(), g0 = f.el;
  flameMade = null;
  var turn = el("button", "act", state.i ? "Flame graph (root at the bottom)"
                                         : "Icicle (root at the top)");
  turn.id = "icicle";
  turn.addEventListener("click", function () { go({ i: state.i ? "" : "1" }); });
  box.appendChild(turn);
  g0.addEventListener("dblclick", function (e) {   /* a frame's source and assembly */
    var g = e.target.closest && e.target.closest("g.f");
    if (g && views.src && g.fname) go({ v: "src", f: g.fname });
  });
  init(g0, f.frames);        /* flame.js: the SVG's own zoom, search and hover */
  var re = searchRe();
  if (re) search(state.q);
  box.appendChild(g0);       /* laid out once, with every frame placed */
  window.scrollTo(0, state.i ? 0 : document.documentElement.scrollHeight);   /* to the root */
  return null;
};

/* ---- the page ---------------------------------------------------------------------- */
var TABS = [["sum", "Summary"], ["td", "Top-down"], ["bu", "Bottom-up"], ["fn", "Caller/callee"],
            ["flame", "Flame graph"], ["tl", "Timeline"]];
(window.prospectViews || []).forEach(function (x) {
  TABS.push([x.key, x.label]);
  views[x.key] = function (box) { return x.draw(box, page); };
});
function buildBar() {
  bar = el("div", "bar");
  var h = el("span", "title", M.title);
  bar.appendChild(h);
  TABS.forEach(function (t, i) {
    var b = el("button", "tab", (i + 1) + " " + t[1]);
    b.id = "tab-" + t[0];
    b.addEventListener("click", function () { go({ v: t[0] }); });
    bar.appendChild(b);
  });
  var f = el("div", "filters");
  function choose(id, label, opts, key) {
    var s = el("select"); s.id = id; s.title = label;
    opts.forEach(function (o) {
      var op = el("option", "", o[1]); op.value = o[0]; s.appendChild(op);
    });
    s.addEventListener("change", function () { var c = {}; c[key] = s.value; go(c); });
    f.appendChild(s);
  }
  var pids = {}, dsos = {};
  for (var p = 0; p < NP; p++) pids[D.proc[2 * p]] = S[D.proc[2 * p + 1]];
  for (var i = 0; i < NSYM; i++) dsos[S[D.sym[3 * i + 1]]] = 1;
  choose("f-proc", "process", [["", "all processes"]].concat(Object.keys(pids).map(function (k) {
    return [k, pids[k] + " (" + k + ")"];
  })), "p");
  if (TL) choose("f-thr", "thread", [["", "all threads"]].concat(TL.threads()), "t");
  choose("f-dso", "sampled in DSO", [["", "all DSOs"]].concat(Object.keys(dsos).sort()
    .map(function (k) { return [k, k]; })), "d");
  choose("f-ctx", "sampled in", [["", "user + kernel"], ["u", "user"], ["k", "kernel"]], "c");
  var q = el("input"); q.id = "q"; q.placeholder = "search (regex), /"; q.spellcheck = false;
  q.addEventListener("change", function () { go({ q: q.value }); });
  f.appendChild(q);
  f.appendChild(el("span", "", "")).id = "share";
  bar.appendChild(f);
  document.getElementById("app").appendChild(bar);
  main = el("div", "main");
  document.getElementById("app").appendChild(main);
}

function render() {
  var t0 = performance.now();
  main.textContent = "";
  TABS.forEach(function (t) {
    document.getElementById("tab-" + t[0]).classList.toggle("on", t[0] === state.v);
  });
  document.getElementById("f-proc").value = state.p;
  if (TL) document.getElementById("f-thr").value = state.t;
  document.getElementById("f-dso").value = state.d;
  document.getElementById("f-ctx").value = state.c;
  document.getElementById("q").value = state.q;
  var re = searchRe(), share = document.getElementById("share");
  share.textContent = re === undefined ? "bad expression" :
                      re ? "Matched: " + matchedShare(re).toFixed(2) + "%" : "";
  current = (views[state.v] || views.sum)(main);
  timings.render = performance.now() - t0;
}

function apply(s) {
  var recompute = s.p !== state.p || s.d !== state.d || s.c !== state.c || s.t !== state.t ||
                  s.r !== state.r || !TOTAL;
  state = s;
  if (recompute) compute();
  render();
}

window.addEventListener("hashchange", function () { apply(readHash()); });
window.addEventListener("keydown", function (e) {
  var inField = e.target && e.target.tagName === "INPUT";
  if (e.key === "/" && !inField) { e.preventDefault(); document.getElementById("q").focus(); }
  else if (e.key === "Escape") {
    if (inField) e.target.blur();
    if (state.q) go({ q: "" }); else if (state.v === "flame") unzoom();
  } else if (!inField && e.key >= "1" && e.key <= String(TABS.length) && !e.ctrlKey && !e.metaKey) {
    go({ v: TABS[+e.key - 1][0] });
  } else if (!inField && e.key === "Backspace") { history.back(); }
});

load();
var t1 = performance.now();
if (window.prospectTimeline)
  TL = prospectTimeline({ D: D, S: S, KIND: KIND, par: par, nodeName: nodeName,
                          nodeKind: nodeKind, nodeDso: nodeDso, el: el, go: go,
                          unpack: unpack });
views.tl = function (box) {
  if (TL) return TL.view(box, state);
  box.appendChild(el("p", "note", "No timeline: the page has no sample times (off-CPU waits, " +
                     "--max-stack, --inline, or a file without them)."));
  return null;
};
timings.timeline = performance.now() - t1;
t1 = performance.now();
buildBar();
timings.bar = performance.now() - t1;
document.title = M.title;
var s0 = readHash();
state.p = "\u0000";                     /* compute on the first apply */
apply(s0);
/* The hottest path open in the top-down tree, as a start. */
for (var n = 0, k; (k = sortedKids(n)).length && totW[k[0]] * 2 >= totW[n]; n = k[0])
  open[k[0]] = true;
if (state.v === "td") render();
timings.first = performance.now();
window.prospect = {
  state: function () { return state; }, go: go, apply: apply, timings: timings,
  total: function () { return TOTAL; }, rows: function () { return current && current.rows; },
  nodeName: nodeName, totW: totW, selfW: selfW, totP: totP, selfP: selfP, funcs: funcTotals,
  matchedShare: function (q) { return matchedShare(new RegExp(q)); },
  open: open, render: render, timeline: TL, par: par, nodeKind: nodeKind, unpack: unpack,
  ready: false
};
/* What views need beyond the first render (the timeline's runs, the function table, the
   flame graph of the selection) is made once the page has shown, before a user's first move
   can come; prospect.ready says it is done (timings.prepare: how long it took; ready: since
   navigation). A view that comes first makes what it needs. */
function prepare() {
  if (window.prospect.ready) return;
  var t0 = performance.now();
  /* The timeline's box is the window's width (its page has no scrollbar). */
  if (TL) TL.prepare(state, innerWidth, state.v !== "tl");
  loadFuncs();
  if (state.v !== "flame") flameMade = buildFlame();
  timings.prepare = performance.now() - t0;
  timings.ready = performance.now();
  window.prospect.ready = true;
}
requestAnimationFrame(function () { setTimeout(prepare, 0); });
setTimeout(prepare, 1000);   /* a page opened in a background tab gets no animation frame */
})();
