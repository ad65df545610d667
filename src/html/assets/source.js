/* SPDX-License-Identifier: MIT */
/* The page's source and assembly view (pprof's weblist): each source line of a function with
   its hits and, when opened, its instructions with theirs. The data is D.src, written by
   src/html/source.c from `prospect annotate`'s engine: per function its files [path, found],
   rows [file, line, hits, text] (annotate --source's) and instructions [address, hits, text,
   row, flags, inlined] (annotate's). html.js draws the view with its helpers (page). */
(function () {
"use strict";
var JUMP_TARGET = 1, JUMP_DOWN = 2, JUMP_UP = 4, CALL = 8;
var MAX_OPEN = 500;  /* "Expand all" opens every line up to this many instructions, else the
                         lines with hits (the layout of thousands of rows takes seconds) */
var src = null;

function data() {
  if (src === null) {
    var D = JSON.parse(document.getElementById("profile-data").textContent);
    src = D.src || false;
  }
  return src;
}
function share(part, whole) { return whole ? (100 * part / whole).toFixed(2) + "%" : ""; }

/* One instruction: hits, address, jump marks, text, the function inlined there. */
function insnRow(page, f, ins) {
  var fl = ins[4], r = page.el("div", "sasm");
  r.dataset.addr = ins[0];
  r.dataset.hits = ins[1];
  r.appendChild(page.el("span", "c num", ins[1] ? String(ins[1]) : ""));
  r.appendChild(page.el("span", "c num", ins[1] ? share(ins[1], f.samples) : ""));
  r.appendChild(page.el("span", "addr", ins[0] + ":"));
  r.appendChild(page.el("span", "mark", (fl & JUMP_TARGET ? ">" : " ") +
                        (fl & JUMP_DOWN ? "v" : fl & JUMP_UP ? "^" : " ")));
  var t = page.el("span", "asm" + (fl & (JUMP_DOWN | JUMP_UP) ? " jump" : "") +
                  (fl & CALL ? " call" : ""), ins[2]);
  r.appendChild(t);
  if (ins[5] !== null) r.appendChild(page.el("span", "inl", "inlined: " + ins[5]));
  if (fl & JUMP_TARGET) r.title = "a jump inside the function lands here";
  return r;
}

/* One source line with its hits; a click shows or hides its instructions. */
function lineRow(page, f, row, insns) {
  var r = page.el("div", "sline" + (row[2] ? " hot" : ""));
  r.dataset.file = row[0] >= 0 ? f.files[row[0]][0] : "";
  r.dataset.line = row[1];
  r.dataset.hits = row[2];
  r.appendChild(page.el("span", "c num", row[2] ? String(row[2]) : ""));
  r.appendChild(page.el("span", "c num", row[2] ? share(row[2], f.samples) : ""));
  r.appendChild(page.el("span", "ln", row[0] >= 0 ? String(row[1]) : ""));
  r.appendChild(page.el("span", "tw", insns.length ? "\u25b8" : ""));
  var text = row[0] < 0 ? "(no line: " + insns.length + " instructions)" :
             row[3] !== null ? row[3] : "";
  r.appendChild(page.el("span", "code", text));
  var box = page.el("div", "sinsns");
  r.open = function (on) {
    if (on === !!box.firstChild) return;
    box.textContent = "";
    if (on) insns.forEach(function (ins) { box.appendChild(insnRow(page, f, ins)); });
    r.childNodes[3].textContent = on ? "\u25be" : "\u25b8";
  };
  if (insns.length) r.addEventListener("click", function () { r.open(!box.firstChild); });
  return [r, box];
}

function fileHead(page, f, k) {
  var file = f.files[k];
  return page.el("div", "sfile", file[1] ? file[0] : "source not found: " + file[0]);
}

function listing(page, box, f) {
  box.appendChild(page.el("h2", "", f.name));
  var sub = page.el("p", "", f.dso + "  \u2014  " + f.samples + " samples taken in it");
  box.appendChild(sub);
  if (f.why) box.appendChild(page.el("p", "note why", "not annotated: " + f.why));
  if (f.nosrc) box.appendChild(page.el("p", "note nosrc", f.nosrc));
  if (!f.rows) return;
  var byRow = f.rows.map(function () { return []; }), lines = [], prev = null, nins = 0;
  (f.insns || []).forEach(function (ins) { if (byRow[ins[3]]) byRow[ins[3]].push(ins); });
  var tools = page.el("p", "stools");
  var all = page.el("button", "act", "Expand all"), none = page.el("button", "act", "Collapse all");
  all.id = "src-expand"; none.id = "src-collapse";
  tools.appendChild(all); tools.appendChild(none);
  tools.appendChild(page.el("span", "note", "  click a line for its instructions; " +
                            "> a jump lands here, v ^ a jump down or up"));
  box.appendChild(tools);
  var view = page.el("div", "srcview"), head = page.el("div", "shead");
  ["Hits", "Of fn", "Line", "", "Source, and its instructions"].forEach(function (h, k) {
    head.appendChild(page.el("span", ["c num", "c num", "ln", "tw", ""][k], h));
  });
  view.appendChild(head);
  f.rows.forEach(function (row, i) {
    if (!prev || prev[0] !== row[0]) {
      if (row[0] >= 0) view.appendChild(fileHead(page, f, row[0]));
    } else if (row[1] > prev[1] + 1) {
      view.appendChild(page.el("div", "gap", "\u22ee"));
    }
    var lr = lineRow(page, f, row, byRow[i]);
    view.appendChild(lr[0]); view.appendChild(lr[1]);
    lines.push([lr[0], byRow[i].length, row[2]]);
    nins += byRow[i].length;
    prev = row;
  });
  box.appendChild(view);
  all.addEventListener("click", function () {
    lines.forEach(function (l) { l[0].open(nins <= MAX_OPEN || l[2] > 0); });
  });
  none.addEventListener("click", function () {
    lines.forEach(function (l) { l[0].open(false); });
  });
  /* The hottest line open at first, as pprof shows its hot spot. */
  var hot = lines.reduce(function (a, l) { return l[2] > (a ? a[2] : 0) ? l : a; }, null);
  if (hot) hot[0].open(true);
}

/* No function chosen: the functions that have a listing, hottest first. */
function index(page, box, s) {
  box.appendChild(page.el("h2", "", "Source and assembly"));
  box.appendChild(page.el("p", "note", "The " + s.funcs.length + " functions with the most " +
      "samples taken in them (--html-source-top " + s.top + "), over the whole profile as " +
      "`prospect annotate` lists them; the filters above do not apply here." +
      (s.more ? " " + s.more + " more functions with samples have no listing." : "")));
  var rows = s.funcs.map(function (f) {
    return [f.samples, f.name, f.dso, f.why ? "not annotated: " + f.why : f.nosrc ? f.nosrc :
            f.files && f.files.some(function (x) { return !x[1]; }) ? "source not found" : ""];
  });
  var t = page.table([{ name: "Samples", num: 1 }, { name: "Function" }, { name: "DSO" },
                      { name: "Note" }], rows, true);
  t.id = "src-index";
  t.addEventListener("click", function (e) {
    var tr = e.target.closest("tr");
    if (tr && tr.cells[1] && tr.parentNode.tagName === "TBODY")
      page.go({ f: tr.cells[1].textContent });
  });
  box.appendChild(t);
  box.appendChild(page.el("p", "note", "Click a function for its listing."));
}

function draw(box, page) {
  var s = data(), name = page.state().f;
  if (!s) {
    box.appendChild(page.el("p", "note", "This page has no source view: it was written with " +
                            "--html-source-top 0, or of off-CPU time."));
    return null;
  }
  if (!name) { index(page, box, s); return null; }
  var fs = s.funcs.filter(function (f) { return f.name === name; });
  if (!fs.length) {
    box.appendChild(page.el("h2", "", name));
    box.appendChild(page.el("p", "note nolisting", "No listing for " + name + ": the page " +
        "lists the " + s.top + " functions with the most samples taken in them " +
        "(--html-source-top), and this is not one of them."));
    return null;
  }
  fs.forEach(function (f) { listing(page, box, f); });
  return null;
}

(window.prospectViews = window.prospectViews || []).push(
  { key: "src", label: "Source", draw: draw });
})();
