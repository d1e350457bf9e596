// the dashboard's behaviour: a legend checkbox hides or shows one agent everywhere (cards,
// charts, table columns), and the best marks are recomputed over the agents shown from the
// tests' results the page carries (report/_dashboard_marks.py does the same for all agents)
(function () {
  "use strict";

  function winner(row, shown, pass) {
    var m = row.m.filter(function (i) { return shown[i]; });
    if (m.length < 2) { return null; }
    for (var k = 0; k < m.length; k++) {
      var i = m[k];
      var wins = row.b[String(i)] || {};
      var why = [];
      var all = m.every(function (j) {
        if (j === i) { return true; }
        if (wins[String(j)] === undefined) { return false; }
        why.push(wins[String(j)]);
        return true;
      });
      if (!all) { continue; }
      var caveats = [];
      if (row.c) {
        Object.keys(pass).map(Number).sort(function (a, b) { return a - b; })
          .forEach(function (q) {
            var why = pass[String(q)][String(i)];
            if (shown[q] && why !== undefined) { caveats.push(why); }
          });
      }
      return { agent: i, why: why.join("; "), caveats: caveats };
    }
    return null;
  }

  function remark(root, data) {
    var shown = {};
    root.querySelectorAll("input[data-toggle]").forEach(function (box) {
      shown[Number(box.getAttribute("data-toggle"))] = box.checked;
    });
    data.rows.forEach(function (row, r) {
      var w = winner(row, shown, data.pass);
      root.querySelectorAll('.agd-row[data-row="' + r + '"]').forEach(function (el) {
        var i = Number(el.getAttribute("data-of"));
        var mark = el.querySelector(".agd-mark");
        var caveat = el.querySelector(".agd-caveat");
        var mine = w !== null && w.agent === i;
        var star = mine && w.caveats.length === 0;
        var warn = mine && w.caveats.length > 0;
        var but = warn ? "but " + w.caveats.join("; ") : "";
        el.classList.toggle("agd-best", star);
        el.classList.toggle("agd-caution", warn);
        mark.className = "agd-mark" + (star ? " agd-star" : warn ? " agd-warn" : "");
        mark.textContent = star ? "★" : warn ? "⚠" : "";
        if (star) {
          mark.setAttribute("title", "best of the shown agents: " + w.why);
        } else if (warn) {
          mark.setAttribute("title", w.why + "; " + but);
        } else {
          mark.removeAttribute("title");
        }
        caveat.textContent = but;
      });
    });
  }

  document.querySelectorAll(".agd").forEach(function (root) {
    var holder = root.querySelector("script.agd-marks");
    var data = holder ? JSON.parse(holder.textContent) : null;
    root.querySelectorAll("input[data-toggle]").forEach(function (box) {
      box.addEventListener("change", function () {
        root.classList.toggle("agd-hide-" + box.getAttribute("data-toggle"), !box.checked);
        if (data) { remark(root, data); }
      });
    });
  });
})();
