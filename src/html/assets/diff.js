/* SPDX-License-Identifier: MIT */
/* The diff page's per-symbol table (src/html/diffpage.c): the rows of `prospect diff --format
   csv`, sortable by a click on a column (again: the other way) and filtered by the search box,
   a regular expression over the shared object and symbol that also searches the differential
   flame graph (its own script's search, flame.js). */
(function () {
"use strict";
var csv = JSON.parse(document.getElementById("diff-rows").textContent);
var HEAD = [["Old", 1], ["New", 1], ["Delta", 1], ["Shared Object", 0], ["Symbol", 0]];

/* RFC 4180 fields: quoted ones may hold commas, quotes ("") and newlines. */
function parseCsv(text) {
  var rows = [], row = [], f = "", q = false, i, c;
  for (i = 0; i < text.length; i++) {
    c = text[i];
    if (q) {
      if (c === '"' && text[i + 1] === '"') { f += '"'; i++; }
      else if (c === '"') q = false;
      else f += c;
    } else if (c === '"') q = true;
    else if (c === ",") { row.push(f); f = ""; }
    else if (c === "\n") { row.push(f); rows.push(row); row = []; f = ""; }
    else f += c;
  }
  if (f || row.length) { row.push(f); rows.push(row); }
  return rows;
}

var rows = parseCsv(csv).slice(1).map(function (r, i) {
  return { v: [+r[0], +r[1], +r[2], r[3], r[4]], order: i };
});
var sortBy = -1, up = false, box = document.getElementById("diff-table");
var q = document.getElementById("dq"), note = document.getElementById("dq-note");

function cell(tr, text, cls) {
  var td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  tr.appendChild(td);
}
function pct(v, signed) { return (signed && v > 0 ? "+" : "") + v.toFixed(2) + "%"; }

function draw() {
  var re = null, shown = 0;
  if (q.value) try { re = new RegExp(q.value); } catch (e) { re = undefined; }
  var t = document.createElement("table"), tr = document.createElement("tr");
  t.id = "rows";
  HEAD.forEach(function (h, k) {
    var th = document.createElement("th");
    th.textContent = h[0] + (k === sortBy ? (up ? " \u25b4" : " \u25be") : "");
    if (h[1]) th.className = "num";
    th.addEventListener("click", function () {
      up = sortBy === k ? !up : !h[1];     /* numbers: largest first; names: a to z */
      sortBy = k;
      rows.sort(function (a, b) {    /* ties keep the text's order (|Delta|) */
        var x = a.v[k], y = b.v[k], c = x < y ? -1 : x > y ? 1 : 0;
        return (up ? c : -c) || a.order - b.order;
      });
      draw();
    });
    tr.appendChild(th);
  });
  t.appendChild(tr);
  rows.forEach(function (r) {
    if (re && !re.test(r.v[3]) && !re.test(r.v[4])) return;
    var w = document.createElement("tr");
    cell(w, pct(r.v[0]), "num"); cell(w, pct(r.v[1]), "num");
    cell(w, pct(r.v[2], true), "num " + (r.v[2] > 0 ? "up" : r.v[2] < 0 ? "down" : ""));
    cell(w, r.v[3]); cell(w, r.v[4]);
    t.appendChild(w);
    shown++;
  });
  box.textContent = "";
  box.appendChild(t);
  note.textContent = re === undefined ? "bad expression" :
                     re ? shown + " of " + rows.length + " rows" : rows.length + " rows";
}

q.addEventListener("input", function () {
  draw();
  if (typeof search === "function" && document.getElementById("matched")) {   /* the graph */
    if (q.value) search(q.value); else if (typeof resetSearch === "function") resetSearch();
  }
});
draw();
window.prospectDiff = { rows: function () { return rows; }, draw: draw };
})();
