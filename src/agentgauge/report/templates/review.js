// agentgauge HTML report: the Planning review section. Each path is graded 1-5 with an optional
// note; grades are kept in the page and in localStorage (per run) and downloaded as
// reviews.jsonl, the lines `agentgauge review` writes. Untrusted text only through textContent.
(function () {
  "use strict";
  if (!document.getElementById("review-list")) { return; }
  var data = window.agentgaugeReview;  // the page's data blob's "review", set by report.js
  if (!data) { return; }
  var list = document.getElementById("review-list");
  var countEl = document.getElementById("review-count");
  var storeKey = "agentgauge-review:" + data.run;
  var grades = {};

  function load() {
    try {
      var saved = JSON.parse(window.localStorage.getItem(storeKey) || "{}");
      if (saved && typeof saved === "object") { grades = saved; }
    } catch (e) { grades = {}; }  // no storage (a locked-down browser): the page keeps them
  }
  function save() {
    try { window.localStorage.setItem(storeKey, JSON.stringify(grades)); } catch (e) { /* kept */ }
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = shown(String(text)); }
    return e;
  }

  // a control or bidi character (ESC, U+202E) would hide itself or reorder its neighbours:
  // shown as its escape, as the report's server-written text shows it (report/_escape.py)
  var HIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
  function shown(s) {
    return s.replace(HIDDEN, function (c) {
      var n = c.charCodeAt(0);
      return n < 256 ? "\\x" + ("0" + n.toString(16)).slice(-2) : "\\u" + ("000" + n.toString(16)).slice(-4);
    });
  }
  function graded() {
    return data.items.filter(function (it) { return grades[it.id] && grades[it.id].label; });
  }
  function count() {
    var n = graded().length;
    countEl.textContent = n + " of " + data.items.length + " graded";
  }
  function block(label, text) {
    var d = el("div", "review-field");
    d.appendChild(el("strong", null, label));
    d.appendChild(el("pre", null, text));
    return d;
  }
  function row(it, k) {
    var box = el("div", "review-item");
    box.setAttribute("data-id", it.id);
    box.appendChild(el("h3", null, it.id + " · " + it.category + " · " + it.status));
    box.appendChild(block("request", it.inputs.question));
    box.appendChild(block("expected tools", it.inputs.expected || "(none)"));
    box.appendChild(block("path taken", it.inputs.plan));
    if (it.inputs.agent_output) { box.appendChild(block("reply", it.inputs.agent_output)); }
    var fs = el("fieldset", "review-grade");
    fs.appendChild(el("legend", null, "grade"));
    var saved = grades[it.id] || {};
    [1, 2, 3, 4, 5].forEach(function (g) {
      var lab = el("label");
      var input = document.createElement("input");
      input.type = "radio";
      input.name = "review-" + k;
      input.value = String(g);
      input.checked = saved.label === g;
      input.addEventListener("change", function () {
        grades[it.id] = { label: g, note: (grades[it.id] || {}).note || "" };
        save();
        count();
      });
      lab.appendChild(input);
      lab.appendChild(document.createTextNode(" " + g + " "));
      fs.appendChild(lab);
    });
    var note = document.createElement("input");
    note.type = "text";
    note.className = "review-note";
    note.placeholder = "note (optional)";
    note.setAttribute("aria-label", "note on " + it.id);
    note.value = saved.note || "";
    note.addEventListener("input", function () {
      var g = grades[it.id] || {};
      g.note = note.value;
      grades[it.id] = g;
      save();
    });
    fs.appendChild(note);
    box.appendChild(fs);
    return box;
  }
  function lines() {
    return graded().map(function (it) {
      var line = { task: data.task, id: it.id, inputs: it.inputs, label: grades[it.id].label };
      var note = (grades[it.id].note || "").trim();
      if (note) { line.note = note; }
      return JSON.stringify(line);
    });
  }
  function download() {
    var text = lines().join("\n");
    var file = new Blob([text ? text + "\n" : ""], { type: "application/jsonl" });
    var a = document.createElement("a");
    a.href = URL.createObjectURL(file);
    a.download = "reviews.jsonl";
    document.body.appendChild(a);
    a.click();
    setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  }

  load();
  data.items.forEach(function (it, k) { list.appendChild(row(it, k)); });
  document.getElementById("review-download").addEventListener("click", download);
  count();
  window.agentgaugeReviewLines = lines;
}());
