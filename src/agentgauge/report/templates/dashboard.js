// the dashboard's only behaviour: a legend checkbox hides or shows one agent everywhere
(function () {
  "use strict";
  document.querySelectorAll(".agd").forEach(function (root) {
    root.querySelectorAll("input[data-toggle]").forEach(function (box) {
      box.addEventListener("change", function () {
        root.classList.toggle("agd-hide-" + box.getAttribute("data-toggle"), !box.checked);
      });
    });
  });
})();
