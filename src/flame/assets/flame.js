/* SPDX-License-Identifier: MIT */
/* The flame graph's behaviour, shared by the SVG (src/flame/svg.c) and the HTML page
   (src/html/): frames are g elements of class f with data-x, data-v, data-d (x and width in
   samples, depth), the name their title up to its last " ("; click zooms, search highlights
   and gives the matched share, hover shows the details line. Embedded at build time
   (Makefile: build/gen/assets.c). */
"use strict";
var svg, W, frames, total, details, matched, zoomed = null, searchRe = null;
function fit(name, w) {
  var n = Math.floor((w - 6) / 7.08);
  if (n < 3) return "";
  return name.length <= n ? name : name.substring(0, n - 2) + "..";
}
/* A frame's text is made when it first has a label: the HTML page leaves it out of frames too
   narrow for one (most of a big graph's; thousands of empty elements cost its first drawing). */
function place(g, x, w) {
  var r = g.fr, t = g.ft, label = fit(g.fname, w);
  r.setAttribute("x", x.toFixed(2)); r.setAttribute("width", w.toFixed(2));
  if (!t) {
    if (!label) return;
    t = g.ft = document.createElementNS(r.namespaceURI, "text");
    t.setAttribute("y", +r.getAttribute("y") + +r.getAttribute("height") - 4);
    g.appendChild(t);
  }
  t.setAttribute("x", (x + 3).toFixed(2)); t.textContent = label;
}
function zoom(z) {
  var s = (W - 20) / z.fv;
  frames.forEach(function (g) {
    g.classList.remove("hide"); g.classList.remove("parent");
    if (g.fd >= z.fd && g.fx >= z.fx && g.fx + g.fv <= z.fx + z.fv)
      place(g, 10 + (g.fx - z.fx) * s, g.fv * s);
    else if (g.fd < z.fd && g.fx <= z.fx && g.fx + g.fv >= z.fx + z.fv) {
      place(g, 10, W - 20); g.classList.add("parent");
    } else g.classList.add("hide");
  });
  zoomed = z; svg.setAttribute("data-zoomed", z.fname);
  svg.querySelector("#unzoom").classList.remove("hide");
}
function unzoom() {
  var s = (W - 20) / total;
  frames.forEach(function (g) {
    g.classList.remove("hide"); g.classList.remove("parent");
    place(g, 10 + g.fx * s, g.fv * s);
  });
  zoomed = null; svg.removeAttribute("data-zoomed");
  svg.querySelector("#unzoom").classList.add("hide");
}
function resetSearch() {
  frames.forEach(function (g) {
    if (g.ofill) { g.fr.setAttribute("fill", g.ofill); g.ofill = null; }
  });
  searchRe = null; matched.textContent = "";
  svg.querySelector("#search").textContent = "Search";
}
/* Highlights the frames whose name matches the regular expression re; returns the share
   of the samples under them (a match inside a match counts once). */
function search(re) {
  var r, hits = [], sum = 0, end = -1;
  resetSearch();
  try { r = new RegExp(re); } catch (e) { matched.textContent = "bad expression"; return -1; }
  frames.forEach(function (g) {
    if (!r.test(g.fname)) return;
    var rect = g.fr;
    g.ofill = rect.getAttribute("fill"); rect.setAttribute("fill", "rgb(230,0,230)");
    hits.push(g);
  });
  hits.sort(function (a, b) { return a.fx - b.fx || a.fd - b.fd; });
  hits.forEach(function (g) {
    if (g.fx >= end) { sum += g.fv; end = g.fx + g.fv; }
    else if (g.fx + g.fv > end) { sum += g.fx + g.fv - end; end = g.fx + g.fv; }
  });
  var pct = total ? 100 * sum / total : 0;
  searchRe = re; matched.textContent = "Matched: " + pct.toFixed(2) + "%";
  svg.querySelector("#search").textContent = "Reset search";
  return pct;
}
function ask() {
  if (searchRe !== null) { resetSearch(); return; }
  var s = prompt("Search frames (regular expression):", "");
  if (s) search(s);
}
/* The frame (g.f) an event happened in, or null. */
function frameOf(e) {
  for (var g = e.target; g && g !== svg; g = g.parentNode)
    if (g.fname !== undefined) return g;
  return null;
}
/* Takes the frames of the graph root (an <svg>: the document of a flame graph SVG, or one
   drawn inside Prospect's HTML page) and wires their clicks and hovers: one listener each on
   the root (thousands of frames' own listeners cost the page's first drawing). data, when
   given (the HTML page), holds each frame's x, v, d, name and title in the frames' order:
   its frames are a rect and a text, without data attributes or <title>. */
function init(root, data) {
  svg = root; W = +svg.getAttribute("width"); zoomed = null; searchRe = null;
  details = svg.querySelector("#details"); matched = svg.querySelector("#matched");
  frames = Array.prototype.slice.call(svg.querySelectorAll("g.f"));
  total = 0;
  frames.forEach(function (g, i) {
    var f = data && data[i];
    g.fx = f ? f.x : +g.getAttribute("data-x"); g.fv = f ? f.v : +g.getAttribute("data-v");
    g.fd = f ? f.d : +g.getAttribute("data-d"); g.ft = null; g.ftitle = f ? f.title : null;
    for (var c = g.firstElementChild; c; c = c.nextElementSibling) {   /* looked up once */
      if (c.localName === "rect") g.fr = c;
      else if (c.localName === "text") g.ft = c;
      else if (c.localName === "title") g.ftitle = c.textContent;
    }
    g.fname = f ? f.name : g.ftitle.substring(0, g.ftitle.lastIndexOf(" ("));
    if (g.fd === 0) total += g.fv;
  });
  svg.addEventListener("click", function (e) { var g = frameOf(e); if (g) zoom(g); });
  svg.addEventListener("mouseover", function (e) {
    var g = frameOf(e);
    if (!g) return;
    details.textContent = g.ftitle;
    if (!g.firstElementChild || g.firstElementChild.localName !== "title") {   /* tooltip */
      var t = document.createElementNS(svg.namespaceURI, "title");
      t.textContent = g.ftitle; g.insertBefore(t, g.firstChild);
    }
  });
  svg.addEventListener("mouseout", function (e) { if (frameOf(e)) details.textContent = " "; });
  svg.querySelector("#unzoom").addEventListener("click", unzoom);
  svg.querySelector("#search").addEventListener("click", ask);
}
/* The standalone SVG's keys: F3 or Ctrl-F searches, Escape resets. */
function keys() {
  window.addEventListener("keydown", function (e) {
    if (e.key === "F3" || ((e.ctrlKey || e.metaKey) && e.key === "f")) {
      e.preventDefault(); ask();
    } else if (e.key === "Escape") { unzoom(); resetSearch(); }
  });
}
