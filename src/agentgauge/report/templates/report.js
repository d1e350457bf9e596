// agentgauge HTML report: the case table (virtual: only the rows in view are in the DOM, filter
// and sort run over every row) and each case's details, embedded or loaded on demand from the
// sidecar directory next to the page (chunk scripts calling agentgaugeCases; script elements load
// from file:// where fetch() does not). Data is untrusted agent output: it is only ever set
// through textContent (never innerHTML).
(function () {
  "use strict";
  var blob = document.getElementById("ag-data");
  if (!blob) { return; }
  var data = JSON.parse(blob.textContent);
  // the Planning review section's items (review.js, run right after this script)
  if (data.review) { window.agentgaugeReview = data.review; }
  var N = data.n, C = data.cols, D = data.dict;
  var OVERSCAN = 10;
  var rowH = 29;
  var scroller = document.getElementById("cases-scroll");
  var table = document.getElementById("cases-table");
  var tbody = table.querySelector("tbody");
  var q = document.getElementById("q");
  var statusSel = document.getElementById("status");
  var catSel = document.getElementById("category");
  var countEl = document.getElementById("count");
  var panel = document.getElementById("case-detail");
  var sortKey = null;
  var sortDir = 1;
  var view = [];
  var hay = null;
  var openRow = -1;
  // the filter a #case= link put in the box (cleared when that case is closed)
  var linkQuery = null;
  var focusPos = -1;
  var drawn = "";
  var measured = false;

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

  function fmtMs(v) {
    if (v === null || v === undefined) { return "–"; }
    if (v >= 1000) { return (v / 1000).toFixed(2) + " s"; }
    if (v < 10) { return v.toFixed(1) + " ms"; }
    return v.toFixed(0) + " ms";
  }

  function status(i) { return D.status[C.st[i]]; }
  function category(i) { return D.cat[C.cat[i]]; }

  // the lower-cased text the filter searches, built once, on the first text filter
  function haystack() {
    if (hay) { return hay; }
    hay = new Array(N);
    for (var i = 0; i < N; i++) {
      var tags = C.tags[i].map(function (t) { return D.tag[t]; }).join(" ");
      hay[i] = [C.id[i], category(i), D.diff[C.diff[i]], status(i), C.why[i], tags]
        .join("\n").toLowerCase();
    }
    return hay;
  }

  var keys = {
    id: function (i) { return C.id[i]; },
    trial: function (i) { return C.trial[i]; },
    status: status,
    category: category,
    score: function (i) { return C.score[i]; },
    latency_ms: function (i) { return C.lat[i]; },
    why: function (i) { return C.why[i]; }
  };

  function sorted(rows) {
    var key = keys[sortKey];
    var vals = new Array(N);
    rows.forEach(function (i) { vals[i] = key(i); });
    return rows.sort(function (a, b) {
      var x = vals[a], y = vals[b];
      if (x < y) { return -sortDir; }
      if (x > y) { return sortDir; }
      return a - b;
    });
  }

  // the filter text lives in the address (#q=...), and so does the open case
  // (#case=ID&trial=N), so a link can point at either
  function setHash(hash) {
    if (typeof history === "undefined" || !history.replaceState) { return; }
    try { history.replaceState(null, "", hash); } catch (e) { /* some file:// viewers refuse */ }
  }

  function saveFilter() {
    setHash(q.value ? "#q=" + encodeURIComponent(q.value) : "#cases");
  }

  // returns the row a #case= link opens (-1: none)
  function loadFilter() {
    if (typeof location === "undefined") { return -1; }
    var hash = location.hash || "";
    var m = /^#q=(.*)$/.exec(hash);
    var c = /^#case=([^&]*)(?:&trial=(\d+))?$/.exec(hash);
    var row = -1;
    try {
      if (m) { q.value = decodeURIComponent(m[1]); }
      if (c) {
        var id = decodeURIComponent(c[1]);
        var trial = c[2] === undefined ? -1 : Number(c[2]);
        for (var i = 0; i < N && row < 0; i++) {
          if (C.id[i] === id && (trial < 0 || C.trial[i] === trial)) { row = i; }
        }
        if (row >= 0) { q.value = id; linkQuery = id; }
      }
    } catch (e) { return -1; }
    if (!m && row < 0) { return -1; }
    var section = document.getElementById("cases");
    if (section && section.scrollIntoView) { section.scrollIntoView(); }
    return row;
  }

  function refresh() {
    var needle = q.value.trim().toLowerCase();
    var st = statusSel.value ? D.status.indexOf(statusSel.value) : -1;
    var cat = catSel.value ? D.cat.indexOf(catSel.value) : -1;
    var h = needle ? haystack() : null;
    var out = [];
    for (var i = 0; i < N; i++) {
      if (st >= 0 && C.st[i] !== st) { continue; }
      if (cat >= 0 && C.cat[i] !== cat) { continue; }
      if (h && h[i].indexOf(needle) < 0) { continue; }
      out.push(i);
    }
    view = sortKey ? sorted(out) : out;
    countEl.textContent = view.length === N ? N.toLocaleString("en") + " results" :
      view.length.toLocaleString("en") + " of " + N.toLocaleString("en") + " results (filtered)";
    scroller.scrollTop = 0;
    drawn = "";
    draw();
  }

  function spacer(px) {
    var tr = el("tr", "spacer");
    var td = el("td");
    td.colSpan = 7;
    td.style.height = px + "px";
    tr.appendChild(td);
    return tr;
  }

  // only the rows in view (and a few around them) are in the DOM
  function draw() {
    var top = scroller.scrollTop || 0;
    var height = scroller.clientHeight || 600;
    var first = Math.max(0, Math.floor(top / rowH) - OVERSCAN);
    var last = Math.min(view.length, Math.ceil((top + height) / rowH) + OVERSCAN);
    var key = first + ":" + last + ":" + openRow;
    if (key === drawn) { return; }
    drawn = key;
    var active = document.activeElement;
    var refocus = active && active.parentNode === tbody;
    while (tbody.firstChild) { tbody.removeChild(tbody.firstChild); }
    if (first > 0) { tbody.appendChild(spacer(first * rowH)); }
    var again = null;
    for (var k = first; k < last; k++) {
      var tr = tbody.appendChild(rowEl(view[k], k));
      if (refocus && k === focusPos) { again = tr; }
    }
    if (last < view.length) { tbody.appendChild(spacer((view.length - last) * rowH)); }
    // the focused row was just replaced: give the focus to its replacement (only now that the
    // table has its full height again, or the browser would pull the scroll position back)
    if (again && again.focus) { again.focus({ preventScroll: true }); }
    if (!measured && last > first) {
      var r = tbody.querySelector("tr.row");
      var h = r && r.getBoundingClientRect ? r.getBoundingClientRect().height : 0;
      measured = true;
      if (h > 0 && Math.abs(h - rowH) > 0.5) { rowH = h; drawn = ""; draw(); }
    }
  }

  // keyboard: arrows move between rows (scrolling the box), Enter or space opens the case
  function moveFocus(k) {
    if (k < 0 || k >= view.length) { return; }
    focusPos = k;
    var top = scroller.scrollTop || 0, height = scroller.clientHeight || 600;
    var head = table.querySelector("thead");
    var headH = head && head.getBoundingClientRect ? head.getBoundingClientRect().height : 0;
    if (k * rowH < top) { scroller.scrollTop = k * rowH; }
    if ((k + 1) * rowH + headH > top + height) { scroller.scrollTop = (k + 1) * rowH + headH - height; }
    drawn = "";
    draw();
    var rows = tbody.querySelectorAll("tr.row");
    for (var j = 0; j < rows.length; j++) {
      if (rows[j].getAttribute("data-pos") === String(k)) { rows[j].focus({ preventScroll: true }); }
    }
  }

  function rowEl(i, k) {
    var tr = el("tr", i === openRow ? "row open" : "row");
    tr.tabIndex = 0;
    tr.setAttribute("data-pos", String(k));
    tr.addEventListener("focus", function () { focusPos = k; });
    tr.appendChild(el("td", "id", C.id[i]));
    tr.appendChild(el("td", null, C.trial[i]));
    var st = el("td");
    st.appendChild(el("span", "status " + status(i), status(i)));
    tr.appendChild(st);
    var diff = D.diff[C.diff[i]];
    tr.appendChild(el("td", null, category(i) + (diff ? " · " + diff : "")));
    tr.appendChild(el("td", null, status(i) === "error" || status(i) === "user_error" ? "–" : C.score[i].toFixed(2)));
    tr.appendChild(el("td", null, C.lat[i] > 0 ? fmtMs(C.lat[i]) : "–"));
    var why = el("td", "why", C.why[i]);
    why.title = C.why[i];
    tr.appendChild(why);
    tr.addEventListener("click", function () { toggle(i); });
    tr.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter" || ev.key === " ") { ev.preventDefault(); toggle(i); }
      if (ev.key === "ArrowDown") { ev.preventDefault(); moveFocus(k + 1); }
      if (ev.key === "ArrowUp") { ev.preventDefault(); moveFocus(k - 1); }
    });
    return tr;
  }

  // --- a case's details: embedded, or from the sidecar's chunk scripts ------------------------

  var chunks = data.chunks || null;
  var cache = {};
  var cacheOrder = [];
  var waiting = {};

  window.agentgaugeCases = function (token, k, start, list) {
    if (!chunks || token !== chunks.token || chunks.starts[k] !== start) { return; }
    cache[k] = list;
    cacheOrder.push(k);
    if (cacheOrder.length > 8) { delete cache[cacheOrder.shift()]; }
    var cbs = waiting[k] || [];
    delete waiting[k];
    cbs.forEach(function (cb) { cb(list, null); });
  };

  function chunkOf(i) {
    var lo = 0, hi = chunks.starts.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (chunks.starts[mid] <= i) { lo = mid; } else { hi = mid - 1; }
    }
    return lo;
  }

  function chunkUrl(k) {
    var s = String(k);
    while (s.length < 4) { s = "0" + s; }
    return encodeURIComponent(chunks.dir) + "/cases-" + s + ".js";
  }

  function loadChunk(k, cb) {
    if (cache[k]) { cb(cache[k], null); return; }
    if (waiting[k]) { waiting[k].push(cb); return; }
    waiting[k] = [cb];
    var s = document.createElement("script");
    s.src = chunkUrl(k);
    s.onload = function () {
      if (s.parentNode) { s.parentNode.removeChild(s); }
      if (waiting[k]) {
        var cbs = waiting[k];
        delete waiting[k];
        cbs.forEach(function (f) { f(null, chunkUrl(k) + " is not part of this report"); });
      }
    };
    s.onerror = function () {
      if (s.parentNode) { s.parentNode.removeChild(s); }
      var cbs = waiting[k] || [];
      delete waiting[k];
      cbs.forEach(function (f) {
        f(null, "could not load " + chunkUrl(k) + ": keep the directory " + chunks.dir +
          "/ next to this page");
      });
    };
    document.head.appendChild(s);
  }

  function withDetail(i, cb) {
    if (!chunks) {
      var t = C.t[i];
      cb(t >= 0 ? data.details[t] : null,
        t >= 0 ? null : "Transcript not embedded (this run is over the transcript cap); " +
          "see results.jsonl.");
      return;
    }
    var k = chunkOf(i);
    loadChunk(k, function (list, err) { cb(list ? list[i - chunks.starts[k]] : null, err); });
  }

  function toggle(i) {
    if (openRow === i) { close(); return; }
    openRow = i;
    drawn = "";
    draw();
    setHash("#case=" + encodeURIComponent(C.id[i]) + "&trial=" + C.trial[i]);
    panel.removeAttribute("data-case");
    while (panel.firstChild) { panel.removeChild(panel.firstChild); }
    panel.hidden = false;
    var head = el("div", "detail-head");
    head.appendChild(el("strong", "kv", C.id[i]));
    head.appendChild(el("span", "muted", " trial " + C.trial[i] + " "));
    head.appendChild(el("span", "status " + status(i), status(i)));
    var x = el("button", "close", "close");
    x.type = "button";
    x.addEventListener("click", close);
    head.appendChild(x);
    panel.appendChild(head);
    var body = el("div", "detail loading", "loading…");
    panel.appendChild(body);
    withDetail(i, function (t, err) {
      if (openRow !== i) { return; }
      body.className = "detail";
      body.textContent = "";
      if (t) { body.appendChild(detail(t)); } else { body.appendChild(el("p", "muted", err)); }
      panel.setAttribute("data-case", C.id[i]);
    });
    if (panel.scrollIntoView) { panel.scrollIntoView({ block: "nearest" }); }
  }

  function close() {
    // a case opened by a #case= link filtered the table to it: closing it shows them all
    var restore = linkQuery !== null && q.value === linkQuery;
    linkQuery = null;
    if (restore) { q.value = ""; }
    if (openRow >= 0 || restore) { saveFilter(); }
    openRow = -1;
    panel.hidden = true;
    panel.removeAttribute("data-case");
    while (panel.firstChild) { panel.removeChild(panel.firstChild); }
    drawn = "";
    if (restore) { refresh(); } else { draw(); }
  }

  function pre(text) { return el("pre", null, text); }

  function callEl(c) {
    var box = el("div", "call");
    box.appendChild(el("div", "fn", c.name + "(…)" + (c.id ? "  #" + c.id : "")));
    box.appendChild(pre(c.arguments));
    return box;
  }

  // the generator leaves out keys whose value is "" or []: put them back
  function filled(t) {
    ["messages", "calls", "expected_tools", "scores", "trace"].forEach(function (k) {
      if (!t[k]) { t[k] = []; }
    });
    t.messages.forEach(function (m) {
      if (!m.tool_calls) { m.tool_calls = []; }
      m.tool_calls.forEach(function (c) { c.name = c.name || ""; });
    });
    t.calls.forEach(function (c) { c.name = c.name || ""; });
    t.scores.forEach(function (s) { s.name = s.name || ""; });
    t.trace.forEach(function (e) { e.name = e.name || ""; e.writes = e.writes || []; });
    return t;
  }

  // the world's state (docs/worlds.md): expected vs actual per differing path, then the final
  // state's records, the changed ones marked (a write touched them), the wrong ones flagged
  function stateEl(s) {
    var wrap = el("div", "state");
    var verdict = s.goal_met === null || s.goal_met === undefined ? "" :
      s.goal_met ? " · goal reached ✔" : " · goal not reached ✘";
    wrap.appendChild(el("h4", null, "Final state" + verdict));
    if (s.diff && s.diff.length) {
      var dt = el("table", "state-diff");
      var head = el("tr");
      ["path", "expected", "actual", "check"].forEach(function (h) {
        head.appendChild(el("th", null, h));
      });
      dt.appendChild(head);
      s.diff.forEach(function (d) {
        var tr = el("tr");
        tr.appendChild(el("td", "kv", d[0]));
        tr.appendChild(el("td", "kv ok", d[1]));
        tr.appendChild(el("td", "kv ko", d[2]));
        tr.appendChild(el("td", "muted", d[3]));
        dt.appendChild(tr);
      });
      wrap.appendChild(dt);
    }
    var recs = s.records || [];
    if (recs.length) {
      var rt = el("table", "state-records");
      var rh = el("tr");
      ["", "record", "value"].forEach(function (h) { rh.appendChild(el("th", null, h)); });
      rt.appendChild(rh);
      recs.forEach(function (r) {
        var tr = el("tr", r.wrong ? "wrong" : r.changed ? "changed" : null);
        var mark = r.wrong ? "✘ wrong" : r.changed ? "● changed" : "";
        tr.appendChild(el("td", r.wrong ? "ko" : "muted", mark));
        tr.appendChild(el("td", "kv", r.path));
        var cell = el("td");
        cell.appendChild(pre(r.value));
        tr.appendChild(cell);
        rt.appendChild(tr);
      });
      wrap.appendChild(rt);
      if (s.more) { wrap.appendChild(el("p", "muted", "… and " + s.more + " more records")); }
    }
    return wrap;
  }

  function detail(t) {
    t = filled(t);
    var box = el("div");
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
        tr.appendChild(el("td", null, s.scaled || s.value.toFixed(2)));
        var v = s.passed === null ? "skipped" : s.passed ? "✔" : "✘";
        tr.appendChild(el("td", s.passed === null ? "muted" : s.passed ? "ok" : "ko", v));
        tr.appendChild(el("td", "kv", s.expected));
        tr.appendChild(el("td", "kv", s.actual));
        tr.appendChild(el("td", null, s.explanation));
        st.appendChild(tr);
      });
      box.appendChild(st);
    }
    if (t.state) { box.appendChild(stateEl(t.state)); }
    var facts = "agent — behaviour: " + (t.behavior || "–") +
      (t.expected_behavior ? " (expected " + t.expected_behavior + ")" : "") +
      (t.expected_tools.length ? " · expected tools: " + t.expected_tools.join(", ") : "") +
      " · model calls: " + t.model_calls + " · tool calls: " + t.tool_calls +
      " · tokens in/out: " + t.usage[0] + "/" + t.usage[1] +
      (t.cost_usd !== null ? " · cost: $" + t.cost_usd.toFixed(4) : "") +
      (t.ttft_ms !== null ? " · ttft: " + fmtMs(t.ttft_ms) : "") +
      (t.step_limit_hit ? " · step limit hit" : "");
    box.appendChild(el("p", "kv muted", facts));
    if (t.user) { box.appendChild(el("p", "kv muted", userFacts(t.user))); }
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

  // the simulated user's own figures (docs/users.md), never in the agent's
  function userFacts(u) {
    return "simulated user (" + u.kind + (u.model ? " · " + u.model : "") +
      (u.template ? " · " + u.template : "") + (u.seed !== undefined && u.seed !== null ? " · seed " + u.seed : "") +
      ") — turns: " + u.turns + " · ended by: " + u.ended_by +
      (u.error ? " · user error: " + u.error : "") +
      " · model calls: " + u.model_calls + " · tokens in/out: " + u.tokens[0] + "/" + u.tokens[1] +
      (u.cost_usd !== undefined && u.cost_usd !== null ? " · cost: $" + u.cost_usd.toFixed(4) : "") +
      " · time: " + fmtMs(u.latency_ms);
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
        (e.error ? " error: " + e.error.slice(0, 120) : "") +
        (e.writes.length ? " · wrote " + e.writes.join("; ").slice(0, 160) : "");
      grid.appendChild(el("span", "kv", name));
      var track = el("div", "track");
      var seg = el("span", "seg " + e.kind + (e.error || e.fault ? " bad" : ""));
      var scale = end > 0 ? 100 / end : 0;
      seg.style.left = (e.offset_ms * scale).toFixed(2) + "%";
      seg.style.width = (e.latency_ms * scale).toFixed(2) + "%";
      var tip = "+" + fmtMs(e.offset_ms) + " for " + fmtMs(e.latency_ms);
      if (e.tokens) { tip += " · tokens " + e.tokens[0] + "/" + e.tokens[1]; }
      if (e.cost_usd) { tip += " · $" + e.cost_usd.toFixed(6); }
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
        e.writes.forEach(function (w) { b.appendChild(el("div", "kv write", "wrote " + w)); });
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
  q.addEventListener("input", function () { linkQuery = null; saveFilter(); refresh(); });
  statusSel.addEventListener("change", refresh);
  catSel.addEventListener("change", refresh);
  scroller.addEventListener("scroll", draw);
  if (typeof window.addEventListener === "function") {
    window.addEventListener("resize", function () { drawn = ""; draw(); });
  }
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && openRow >= 0) { close(); }
  });
  var linked = loadFilter();
  refresh();
  if (linked >= 0) { toggle(linked); }
})();
