// What the page needs to read well at any width and in print (see ib-site.css).
// 1. Scroll cues: a code block, an output, a table or a display equation wider than its
//    column scrolls sideways; it is marked `ib-scrolls` (and `ib-scrolled`, `ib-scroll-end`
//    by its position), and ib-site.css fades the edge that hides more. Phones hide their
//    scroll bars, so without the fade nothing says that the text goes on.
// 2. Print (window.ibPrint.prepare, run by tools/pdf.py and before a reader's Ctrl+P): the
//    evidence and the answers to Think prompts open; code lines that wrap keep their
//    indentation, wide equations and tables shrink to the page, and only blocks shorter
//    than a third of a page refuse to break. The print edition alone also gathers each
//    chapter's evidence at its end (ibPrint.gatherEvidence); a reader's Ctrl+P prints it in
//    place.
(function () {
  "use strict";

  var SCROLLERS = [
    "div.highlight pre", ".cell_output pre", ".cell_output > .output",
    ".pst-scrollable-table-container", 'div.math > mjx-container[display="true"]',
  ].join(", ");

  function mark(el) {
    var over = el.scrollWidth > el.clientWidth + 1;
    el.classList.toggle("ib-scrolls", over);
    el.classList.toggle("ib-scrolled", over && el.scrollLeft > 1);
    el.classList.toggle("ib-scroll-end", over && el.scrollLeft + el.clientWidth >= el.scrollWidth - 1);
  }

  var watched = new WeakSet();
  var resized = window.ResizeObserver ? new ResizeObserver(function (entries) {
    entries.forEach(function (entry) { mark(entry.target); });
  }) : null;

  function scan() {
    document.querySelectorAll(SCROLLERS).forEach(function (el) {
      if (watched.has(el)) return;
      watched.add(el);
      el.addEventListener("scroll", function () { mark(el); }, {passive: true});
      if (resized) resized.observe(el);
      mark(el);
    });
  }

  // ------------------------------------------------------------------ print
  // One line of a code block per element, with a hanging indent: a line that wraps
  // continues four columns right of where it started (pre-wrap alone restarts at column 0).
  function splitLines(pre) {
    if (pre.dataset.ibLines) return;
    pre.dataset.ibLines = "1";
    var lines = [[]];
    Array.prototype.slice.call(pre.childNodes).forEach(function (node) {
      var parts = node.textContent.split("\n");
      parts.forEach(function (part, i) {
        if (i > 0) lines.push([]);
        if (!part) return;
        if (parts.length === 1) { lines[lines.length - 1].push(node); return; }
        var piece = node.nodeType === 1 ? node.cloneNode(false) : document.createTextNode("");
        piece.textContent = part;
        lines[lines.length - 1].push(piece);
      });
    });
    if (lines.length > 1 && lines[lines.length - 1].length === 0) lines.pop();
    pre.textContent = "";
    lines.forEach(function (nodes, i) {
      var line = document.createElement("span");
      line.className = "ib-line";
      var text = nodes.map(function (n) { return n.textContent; }).join("");
      var indent = text.length - text.replace(/^ +/, "").length;
      line.style.setProperty("--ib-indent", (indent + 4) + "ch");
      nodes.forEach(function (n) { line.appendChild(n); });
      pre.appendChild(line);
      if (i < lines.length - 1) {
        var nl = document.createElement("span");
        nl.className = "ib-nl";
        nl.textContent = "\n";
        pre.appendChild(nl);
      }
    });
  }

  // shrink an element's font until its content fits its box (MathJax scales with the font)
  function fit(box, content, least) {
    var need = content.getBoundingClientRect().width, room = box.clientWidth;
    if (need <= room + 1) return;
    var scale = Math.max(least, Math.floor(100 * room / need) / 100);
    box.style.fontSize = (100 * scale) + "%";
  }

  var KEEP = ["div.cell", "div.cell_output", "div.highlight", "div.proof", "div.admonition",
              "div.exercise", "div.solution", "figure", "table", "div.math", ".ib-explorer"].join(", ");

  function prepare(pageHeight) {
    // the evidence and the answers to Think prompts (tools/sphinx_teaching.py) print open
    document.querySelectorAll("details.ib-evidence, details.ib-answer").forEach(function (d) { d.open = true; });
    document.querySelectorAll("pre").forEach(splitLines);
    document.querySelectorAll('div.math > mjx-container[display="true"]').forEach(function (m) {
      fit(m, m.querySelector("mjx-math") || m, 0.6);
    });
    document.querySelectorAll(".pst-scrollable-table-container, .bd-article table").forEach(function (t) {
      var table = t.tagName === "TABLE" ? t : t.querySelector("table");
      if (table) fit(t.tagName === "TABLE" ? t.parentElement : t, table, 0.7);
    });
    document.querySelectorAll(".bd-article img[width]").forEach(function (img) {
      img.style.maxWidth = "min(100%, " + img.getAttribute("width") + "px)";
      img.classList.add("ib-print-fit");
    });
    var third = (pageHeight || 1000) / 3;
    document.querySelectorAll(KEEP).forEach(function (el) {
      el.classList.toggle("ib-keep", el.getBoundingClientRect().height < third);
    });
  }

  // The print edition (tools/pdf.py) moves a chapter's evidence to its end, where it reads as an
  // appendix to the chapter: each block leaves in its place a line that names it and links to
  // it, and opens with a link back to its section (the print adds the pages to both links).
  function gatherEvidence() {
    var blocks = document.querySelectorAll(".bd-article details.ib-evidence");
    if (!blocks.length) return;
    var end = document.createElement("section");
    end.className = "ib-evidence-appendix";
    end.id = "ib-evidence";
    var heading = document.createElement("h2");
    heading.textContent = "Evidence";
    var intro = document.createElement("p");
    intro.textContent = "The tables, sweeps and checks behind this chapter's sections.";
    end.append(heading, intro);
    blocks.forEach(function (block, i) {
      var summary = block.querySelector(":scope > summary");
      block.id = "ib-evidence-" + (i + 1);
      var stub = document.createElement("p");
      stub.className = "ib-evidence-stub";
      var there = document.createElement("a");
      there.className = "reference internal";
      there.href = "#" + block.id;
      there.innerHTML = summary.innerHTML;
      stub.appendChild(there);
      block.replaceWith(stub);
      var section = stub.closest("section[id]");
      var title = section && section.querySelector(":scope > h1, :scope > h2, :scope > h3, :scope > h4");
      if (title) {
        var from = document.createElement("p");
        from.className = "ib-evidence-from";
        var back = document.createElement("a");
        back.className = "reference internal";
        back.href = "#" + section.id;
        back.textContent = title.textContent.replace(/[#¶]\s*$/, "").trim();
        from.append("For the section ", back);
        block.querySelector(":scope > .ib-evidence-body").prepend(from);
      }
      block.open = true;
      end.appendChild(block);
    });
    var chapter = document.querySelector(".bd-article > section:last-of-type") || document.querySelector(".bd-article");
    chapter.appendChild(end);
  }

  window.ibPrint = {prepare: prepare, gatherEvidence: gatherEvidence};
  // for the site's layout checks (tests/site/geometry.py): no scan is waiting to run
  window.ibLayout = {idle: function () { return pending === null; }};
  window.addEventListener("beforeprint", function () { prepare(); });

  var pending = null;
  function later() {  // MathJax and the widgets add nodes by the thousand: one scan per burst
    if (pending === null) pending = setTimeout(function () { pending = null; scan(); }, 100);
  }

  function start() {
    scan();
    new MutationObserver(later).observe(document.body, {subtree: true, childList: true});
    // a hidden cell opened: what it shows is laid out only now
    document.addEventListener("toggle", function (event) {
      if (event.target.querySelectorAll) event.target.querySelectorAll(SCROLLERS).forEach(mark);
    }, true);
    if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(scan);
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
