// agentgauge HTML report: the filterable, sortable case table and its transcripts.
// Data comes from the JSON blob; it is untrusted agent output, so it is only ever set
// through textContent (never innerHTML).
(function () {
  "use strict";
  var blob = document.getElementById("ag-data");
  if (!blob) { return; }
  var data = JSON.parse(blob.textContent);
  var rows = data.rows;
  var transcripts = data.transcripts;
  var PAGE = 500;
  var table = document.getElementById("cases-table");
  var tbody = table.querySelector("tbody");
  var q = document.getElementById("q");
  var statusSel = document.getElementById("status");
  var catSel = document.getElementById("category");
  var countEl = document.getElementById("count");
  var more = document.getElementById("more");
  var sortKey = null;
  var sortDir = 1;
  var shown = PAGE;
  var view = rows;

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) { e.className = cls; }
    if (text !== undefined && text !== null) { e.textContent = String(text); }
    return e;
  }

  function fmtMs(v) {
    if (v === null || v === undefined) { return "–"; }
    if (v >= 1000) { return (v / 1000).toFixed(2) + " s"; }
    if (v < 10) { return v.toFixed(1) + " ms"; }
    return v.toFixed(0) + " ms";
  }

  var seen = Object.create(null);
  rows.forEach(function (r) { seen[r.category] = true; });
  Object.keys(seen).sort().forEach(function (c) {
    var o = el("option", null, c);
    o.value = c;
    catSel.appendChild(o);
  });

  function matches(r, needle, status, cat) {
    if (status && r.status !== status) { return false; }
    if (cat && r.category !== cat) { return false; }
    if (!needle) { return true; }
    var hay = [r.id, r.category, r.difficulty, r.status, r.why, r.tags.join(" ")].join("\n");
    return hay.toLowerCase().indexOf(needle) >= 0;
  }

  function compare(a, b) {
    var x = a[sortKey], y = b[sortKey];
    if (x < y) { return -sortDir; }
    if (x > y) { return sortDir; }
    return 0;
  }

  // the filter text lives in the address (#q=...), so a link can point at a case
  function saveFilter() {
    if (typeof history === "undefined" || !history.replaceState) { return; }
    var hash = q.value ? "#q=" + encodeURIComponent(q.value) : "#cases";
    try { history.replaceState(null, "", hash); } catch (e) { /* some file:// viewers refuse */ }
  }

  function loadFilter() {
    if (typeof location === "undefined") { return; }
    var m = /^#q=(.*)$/.exec(location.hash || "");
    if (!m) { return; }
    try { q.value = decodeURIComponent(m[1]); } catch (e) { return; }
    var section = document.getElementById("cases");
    if (section && section.scrollIntoView) { section.scrollIntoView(); }
  }

  function refresh() {
    var needle = q.value.trim().toLowerCase();
    var status = statusSel.value, cat = catSel.value;
    view = rows.filter(function (r) { return matches(r, needle, status, cat); });
    if (sortKey) { view = view.slice().sort(compare); }
    shown = PAGE;
    render();
  }

  function render() {
    while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
    var n = Math.min(shown, view.length);
    for (var i = 0; i < n; i++) { tbody.appendChild(rowEl(view[i])); }
    countEl.textContent = "showing " + n + " of " + view.length +
      (view.length !== rows.length ? " (filtered from " + rows.length + ")" : "");
    more.hidden = n >= view.length;
  }

  function rowEl(r) {
    var tr = el("tr", "row");
    tr.tabIndex = 0;
    tr.appendChild(el("td", "id", r.id));
    tr.appendChild(el("td", null, r.trial));
    var st = el("td");
    st.appendChild(el("span", "status " + r.status, r.status));
    tr.appendChild(st);
    tr.appendChild(el("td", null, r.category + (r.difficulty ? " · " + r.difficulty : "")));
    tr.appendChild(el("td", null, r.status === "error" ? "–" : r.score.toFixed(2)));
    tr.appendChild(el("td", null, r.latency_ms > 0 ? fmtMs(r.latency_ms) : "–"));
    tr.appendChild(el("td", "why", r.why));
    function toggle() {
      var next = tr.nextSibling;
      if (next && next.className === "detail-row") {
        tbody.removeChild(next);
        tr.classList.remove("open");
        return;
      }
      var d = el("tr", "detail-row");
      var td = el("td", "detail");
      td.colSpan = 7;
      td.appendChild(detail(r));
      d.appendChild(td);
      tbody.insertBefore(d, next);
      tr.classList.add("open");
    }
    tr.addEventListener("click", toggle);
    tr.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(); }
    });
    return tr;
  }

  function pre(text) { return el("pre", null, text); }

  function callEl(c) {
    var box = el("div", "call");
    box.appendChild(el("div", "fn", c.name + "(…)" + (c.id ? "  #" + c.id : "")));
    box.appendChild(pre(c.arguments));
    return box;
  }

  function detail(r) {
    var box = el("div");
    if (r.t < 0) {
      box.appendChild(el("p", "muted",
        "Transcript not embedded (this run is over the transcript cap); see results.jsonl."));
      return box;
    }
    var t = transcripts[r.t];
    if (t.error) { box.appendChild(el("h4", null, "Error")); box.appendChild(pre(t.error)); }
    if (t.explanation) {
      box.appendChild(el("h4", null, "Explanation"));
      box.appendChild(pre(t.explanation));
    }
    if (t.scores.length) {
      box.appendChild(el("h4", null, "Scores"));
      var st = el("table");
      var head = el("tr");
      ["score", "value", "verdict", "expected", "actual", "explanation"].forEach(function (h) {
        head.appendChild(el("th", null, h));
      });
      st.appendChild(head);
      t.scores.forEach(function (s) {
        var tr = el("tr");
        var name = el("td", "kv", (s.depth ? "\u00a0\u00a0".repeat(s.depth) + "↳ " : "") + s.name);
        tr.appendChild(name);
        tr.appendChild(el("td", null, s.value.toFixed(2)));
        var v = s.passed === null ? "skipped" : s.passed ? "✔" : "✘";
        tr.appendChild(el("td", s.passed === null ? "muted" : s.passed ? "ok" : "ko", v));
        tr.appendChild(el("td", "kv", s.expected));
        tr.appendChild(el("td", "kv", s.actual));
        tr.appendChild(el("td", null, s.explanation));
        st.appendChild(tr);
      });
      box.appendChild(st);
    }
    var facts = "behaviour: " + (t.behavior || "–") +
      (t.expected_behavior ? " (expected " + t.expected_behavior + ")" : "") +
      (t.expected_tools.length ? " · expected tools: " + t.expected_tools.join(", ") : "") +
      " · model calls: " + t.model_calls + " · tool calls: " + t.tool_calls +
      " · tokens in/out: " + t.usage[0] + "/" + t.usage[1] +
      (t.cost_usd !== null ? " · cost: $" + t.cost_usd.toFixed(4) : "") +
      (t.ttft_ms !== null ? " · ttft: " + fmtMs(t.ttft_ms) : "") +
      (t.step_limit_hit ? " · step limit hit" : "");
    box.appendChild(el("p", "kv muted", facts));
    if (t.messages.length) {
      box.appendChild(el("h4", null, "Transcript"));
      t.messages.forEach(function (m) {
        var mb = el("div", "msg " + m.role);
        var label = m.role + (m.name ? " · " + m.name : "") +
          (m.tool_call_id ? " · answers " + m.tool_call_id : "");
        mb.appendChild(el("div", "role", label));
        if (m.content) { mb.appendChild(pre(m.content)); }
        m.tool_calls.forEach(function (c) { mb.appendChild(callEl(c)); });
        box.appendChild(mb);
      });
    } else {
      if (t.calls.length) {
        box.appendChild(el("h4", null, "Tool calls"));
        t.calls.forEach(function (c) { box.appendChild(callEl(c)); });
      }
      if (t.text) { box.appendChild(el("h4", null, "Final answer")); box.appendChild(pre(t.text)); }
    }
    if (t.trace.length) { box.appendChild(traceEl(t.trace, !t.messages.length)); }
    return box;
  }

  // the tool results are listed from the trace only when there are no messages showing them
  function traceEl(trace, withResults) {
    var wrap = el("div");
    wrap.appendChild(el("h4", null, "Trace timing"));
    var end = 0;
    trace.forEach(function (e) { end = Math.max(end, e.offset_ms + e.latency_ms); });
    var grid = el("div", "wf");
    trace.forEach(function (e) {
      grid.appendChild(el("span", "muted", "turn " + e.turn + " · " + e.kind));
      var name = e.name + (e.cached ? " (cached)" : "") +
        (e.attempts > 1 ? " ×" + e.attempts : "") + (e.fault ? " fault: " + e.fault : "") +
        (e.error ? " error: " + e.error.slice(0, 120) : "");
      grid.appendChild(el("span", "kv", name));
      var track = el("div", "track");
      var seg = el("span", "seg " + e.kind + (e.error || e.fault ? " bad" : ""));
      var scale = end > 0 ? 100 / end : 0;
      seg.style.left = (e.offset_ms * scale).toFixed(2) + "%";
      seg.style.width = (e.latency_ms * scale).toFixed(2) + "%";
      var tip = "+" + fmtMs(e.offset_ms) + " for " + fmtMs(e.latency_ms);
      if (e.tokens) { tip += " · tokens " + e.tokens[0] + "/" + e.tokens[1]; }
      if (e.ttft_ms !== null) { tip += " · ttft " + fmtMs(e.ttft_ms); }
      if (e.error) { tip += " · error: " + e.error; }
      seg.title = tip;
      track.appendChild(seg);
      grid.appendChild(track);
      grid.appendChild(el("span", "t", fmtMs(e.latency_ms)));
    });
    wrap.appendChild(grid);
    var tools = trace.filter(function (e) { return e.kind === "tool"; });
    if (withResults && tools.length) {
      wrap.appendChild(el("h4", null, "Tool results"));
      tools.forEach(function (e) {
        var b = el("div", "call");
        b.appendChild(el("div", "fn", e.name + (e.fault ? "  [fault: " + e.fault + "]" : "")));
        if (e.arguments) { b.appendChild(pre(e.arguments)); }
        b.appendChild(pre(e.error ? "error: " + e.error : e.result || "(no result)"));
        wrap.appendChild(b);
      });
    }
    return wrap;
  }

  Array.prototype.forEach.call(table.querySelectorAll("th[data-key]"), function (th) {
    th.addEventListener("click", function () {
      var key = th.getAttribute("data-key");
      sortDir = sortKey === key ? -sortDir : 1;
      sortKey = key;
      Array.prototype.forEach.call(table.querySelectorAll("th"), function (h) {
        h.classList.remove("asc", "desc");
        h.removeAttribute("aria-sort");
      });
      th.classList.add(sortDir > 0 ? "asc" : "desc");
      th.setAttribute("aria-sort", sortDir > 0 ? "ascending" : "descending");
      refresh();
    });
  });
  q.addEventListener("input", function () { saveFilter(); refresh(); });
  statusSel.addEventListener("change", refresh);
  catSel.addEventListener("change", refresh);
  more.addEventListener("click", function () { shown += PAGE; render(); });
  loadFilter();
  refresh();
})();
