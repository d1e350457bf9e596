// A minimal fake DOM for test_html.py: runs the report's script under Node.js and prints
// what it rendered as JSON. Usage: node test_html_fake_dom.js report.html
const fs = require("fs");
const page = fs.readFileSync(process.argv[2], "utf8");
const blobText = /<script type="application\/json" id="ag-data">([\s\S]*?)<\/script>/.exec(page)[1];
const code = /<script>\n([\s\S]*?)<\/script>/.exec(page)[1];
class ClassList {
  constructor(el) { this.el = el; }
  add(...c) { const s = new Set(this.el.className.split(" ").filter(Boolean)); c.forEach(x => s.add(x)); this.el.className = [...s].join(" "); }
  remove(...c) { this.el.className = this.el.className.split(" ").filter(x => x && !c.includes(x)).join(" "); }
  contains(c) { return this.el.className.split(" ").includes(c); }
}
class El {
  constructor(tag) {
    this.tagName = tag; this.children = []; this.parentNode = null; this.className = "";
    this._text = ""; this.style = {}; this.attrs = {}; this.listeners = {}; this.hidden = false;
    this.value = ""; this.classList = new ClassList(this);
    this.scrollTop = 0; this.clientHeight = 0;
  }
  set innerHTML(v) { throw new Error("innerHTML used"); }
  get textContent() { return this._text + this.children.map(c => c.textContent).join(""); }
  set textContent(v) { this.children = []; this._text = String(v); }
  get firstChild() { return this.children[0] || null; }
  get nextSibling() { if (!this.parentNode) return null; const s = this.parentNode.children; return s[s.indexOf(this) + 1] || null; }
  appendChild(c) { c.parentNode = this; this.children.push(c); return c; }
  removeChild(c) { this.children.splice(this.children.indexOf(c), 1); c.parentNode = null; return c; }
  insertBefore(c, ref) { if (!ref) return this.appendChild(c); c.parentNode = this; this.children.splice(this.children.indexOf(ref), 0, c); return c; }
  addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); }
  fire(t, ev) { (this.listeners[t] || []).forEach(f => f(ev || { key: "", preventDefault() {} })); }
  getBoundingClientRect() { return { top: 0, height: 0 }; }
  getAttribute(n) { return this.attrs[n]; }
  setAttribute(n, v) { this.attrs[n] = String(v); }
  removeAttribute(n) { delete this.attrs[n]; }
  querySelector(sel) { return this.querySelectorAll(sel)[0] || null; }
  querySelectorAll(sel) {
    const out = [];
    const walk = e => { e.children.forEach(c => { if (match(c, sel)) out.push(c); walk(c); }); };
    walk(this); return out;
  }
}
function match(e, sel) {
  if (sel === "th[data-key]") return e.tagName === "th" && "data-key" in e.attrs;
  if (sel === "tr.row") return e.tagName === "tr" && e.classList.contains("row");
  return e.tagName === sel;
}
const ids = {};
function mk(tag, id) { const e = new El(tag); ids[id] = e; return e; }
const blob = mk("script", "ag-data"); blob._text = blobText;
const scroller = mk("div", "cases-scroll");
const table = scroller.appendChild(mk("table", "cases-table"));
const thead = table.appendChild(new El("thead"));
["id", "trial", "status", "category", "score", "latency_ms", "why"].forEach(k => { const th = thead.appendChild(new El("th")); th.attrs["data-key"] = k; });
const tbody = table.appendChild(new El("tbody"));
mk("input", "q"); mk("select", "status"); mk("select", "category"); mk("span", "count"); mk("div", "case-detail");
const docListeners = {};
global.window = {};
global.document = {
  getElementById: id => ids[id] || null, createElement: tag => new El(tag), head: new El("head"),
  addEventListener(t, f) { (docListeners[t] = docListeners[t] || []).push(f); },
};
const hashes = [];
global.location = { hash: process.argv[3] || "" };
global.history = { replaceState(_s, _t, h) { hashes.push(h); } };
eval(code);
const out = {};
const rows = () => tbody.children.filter(r => r.className.split(" ").includes("row"));
if (process.argv[3]) {
  console.log(JSON.stringify({ rows: rows().map(r => r.children[0].textContent), q: ids.q.value }));
  process.exit(0);
}
const panel = ids["case-detail"];
out.rows = rows().length;
out.count = ids.count.textContent;
rows()[1].fire("click");
out.open = rows()[1].className;
out.detail = panel.textContent;
out.panelHidden = panel.hidden;
rows()[1].fire("keydown", { key: "Enter", preventDefault() {} });
out.afterToggle = [panel.hidden, rows()[1].className];
ids.status.value = "failed"; ids.status.fire("change");
out.failed = rows().map(r => r.children[0].textContent);
ids.status.value = ""; ids.status.fire("change");
ids.q.value = "oslo"; ids.q.fire("input");
out.search = rows().map(r => r.children[0].textContent);
ids.q.value = ""; ids.q.fire("input");
thead.children[5].fire("click"); thead.children[5].fire("click");
out.sortedDesc = rows().map(r => r.children[5].textContent);
out.ariaSort = thead.children[5].attrs["aria-sort"];
out.hashes = hashes;
console.log(JSON.stringify(out));
