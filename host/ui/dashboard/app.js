/* kytos-c dashboard: plain JavaScript, no build step, nothing downloaded.
 * Polls the REST API once a second, follows the event and log streams
 * (server-sent events), draws small charts on canvases and the topology as
 * SVG.  Text from the controller goes in with textContent, never as HTML. */
"use strict";

const API = "/api/kytos/";
const HISTORY = 90;            // points per chart (a second each)
const COLORS = ["#2f6fdf", "#c2185b", "#00897b", "#f57c00", "#6a1b9a", "#5d4037", "#0097a7"];
const state = { prev: null, series: {}, napps: {}, routes: {}, evcs: {}, highlight: null };

function el(tag, attrs, ...kids) {
  const svg = ["svg", "g", "line", "circle", "text", "polyline", "title"].includes(tag);
  const e = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "text") e.textContent = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

async function getJSON(path) {
  const r = await fetch(path, { cache: "no-store" });
  if (!r.ok) { const err = new Error(path + ": " + r.status); err.status = r.status; throw err; }
  return r.json();
}

function notice(id, text) {
  const n = document.getElementById(id);
  n.hidden = !text;
  n.textContent = text || "";
}

/* ---- host and load ---- */

const CHARTS = [
  ["req", "requests/s"], ["lat", "latency ms"], ["rej", "503+429 /s"],
  ["inflight", "in flight"], ["queue", "event queues"], ["dead", "dead letter"],
];

function setupCharts() {
  const box = document.getElementById("charts");
  for (const [key, label] of CHARTS) {
    state.series[key] = [];
    box.append(el("div", { class: "chart", id: "chart-" + key },
      el("div", { class: "label" }, el("span", { text: label }), el("b", { id: "val-" + key, text: "–" })),
      el("canvas", { width: 200, height: 48 })));
  }
}

function push(key, v) {
  const s = state.series[key];
  s.push(v);
  if (s.length > HISTORY) s.shift();
  document.getElementById("val-" + key).textContent = Number.isInteger(v) ? v : v.toFixed(1);
  const c = document.querySelector("#chart-" + key + " canvas");
  const w = c.width = c.clientWidth || 200, h = c.height = 48, g = c.getContext("2d");
  const max = Math.max(1, ...s);
  g.clearRect(0, 0, w, h);
  g.strokeStyle = "#2f6fdf"; g.fillStyle = "rgba(47,111,223,.12)"; g.lineWidth = 1.5;
  g.beginPath();
  s.forEach((y, i) => {
    const x = (i / (HISTORY - 1)) * w, yy = h - 2 - (y / max) * (h - 6);
    i ? g.lineTo(x, yy) : g.moveTo(x, yy);
  });
  g.stroke();
  g.lineTo(((s.length - 1) / (HISTORY - 1)) * w, h); g.lineTo(0, h); g.fill();
}

function sumValues(o) {
  return Object.values(o || {}).reduce((a, v) => a + (typeof v === "number" ? v : 0), 0);
}

async function refreshHost() {
  const st = await getJSON(API + "core/status/");
  const now = performance.now(), http = st.http || {}, ev = st.events || {};
  const badge = document.getElementById("health");
  badge.textContent = st.response || "running";
  badge.className = "badge " + (st.response === "running" ? "ok" : "bad");
  const facts = document.getElementById("host-facts");
  const cfg = state.config || {};
  const rows = [
    ["uptime", fmtUptime(st.uptime_seconds || 0)],
    ["started", st.started_at || ""],
    ["REST", location.host],
    ["OpenFlow", st.southbound && st.southbound.listen ? JSON.stringify(st.southbound.listen).replace(/"/g, "") : ""],
    ["store", cfg.database || "embedded"],
    ["napps dir", cfg.napps || ""],
    ["NApps", Object.keys(st.napps || {}).length + " enabled"],
    ["requests", http.requests_served ?? ""],
    ["log lines dropped", st.log_dropped ?? 0],
  ];
  facts.replaceChildren(...rows.flatMap(([k, v]) => [el("dt", { text: k }), el("dd", { text: String(v) })]));
  const p = state.prev;
  const served = http.requests_served || 0, rej = (http.rejected_503 || 0) + (http.rejected_429 || 0);
  if (p) {
    const dt = Math.max(0.001, (now - p.t) / 1000);
    push("req", Math.max(0, (served - p.served) / dt));
    push("rej", Math.max(0, (rej - p.rej) / dt));
  }
  push("lat", ((http.overload || {}).latency_ms) || 0);
  push("inflight", http.in_flight || 0);
  push("queue", sumValues(st.buffers_qsize) + sumValues(st.thread_pool_qsize));
  push("dead", (ev.dead_letter || {}).count || 0);
  state.prev = { t: now, served, rej };
  state.status = st;
  renderNapps();
}

function fmtUptime(s) {
  const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
  return (d ? d + "d " : "") + (h ? h + "h " : "") + m + "m " + (s % 60) + "s";
}

/* ---- NApps ---- */

async function refreshRoutes() {
  try {
    const list = await getJSON(API + "core/routes/");
    const count = {};
    for (const r of list) if (r.napp) count[r.napp] = (count[r.napp] || 0) + 1;
    state.routes = count;
  } catch (e) { /* an older kytosd: no counts */ }
}

/* A NApp's load time (status' load_ms): "0.42 ms", "12.3 ms", "1250 ms". */
function fmtMs(ms) {
  return (ms < 10 ? ms.toFixed(2) : ms < 100 ? ms.toFixed(1) : ms.toFixed(0)) + " ms";
}

function renderNapps() {
  const st = state.status || {};
  const rows = {};
  for (const f of Object.values(st.napp_files || {})) {
    if (f.id) rows[f.id] = Object.assign({}, f);
  }
  for (const [id, n] of Object.entries(st.napps || {})) rows[id] = Object.assign(rows[id] || {}, n, { id });
  const tbody = document.querySelector("#napp-table tbody");
  const ids = Object.keys(rows).sort();
  notice("napp-msg", ids.length ? "" : "No NApp is installed: drop a .so in the napps directory.");
  tbody.replaceChildren(...ids.map((id) => {
    const n = rows[id], [u, name] = id.split("/"), on = n.state === "enabled";
    const act = (what, path) => el("button", {
      text: what, "data-action": what, "data-napp": id,
      onclick: async (ev) => {
        ev.target.disabled = true;
        try { await fetch(API + "core/" + path, { method: "POST" }); } finally { setTimeout(tick, 150); }
      },
    });
    return el("tr", { "data-napp": id },
      el("td", { text: id }),
      el("td", {}, el("span", { class: "state-" + (n.state || "unknown"), text: n.state || "?" }),
        n.reason ? el("div", { class: "reason", text: n.reason }) : null),
      el("td", { text: n.version || "" }),
      el("td", { class: "load-ms", text: on && typeof n.load_ms === "number" ? fmtMs(n.load_ms) : "" }),
      el("td", { text: String(state.routes[id] || 0) }),
      el("td", {}, on ? act("disable", "napps/" + u + "/" + name + "/disable") : act("enable", "napps/" + u + "/" + name + "/enable"),
        on ? act("reload", "reload/" + u + "/" + name + "/") : null));
  }));
}

/* ---- network ---- */

/* An endpoint's switch: its own field, or its interface id less the port. */
function switchOf(ep) {
  if (!ep) return null;
  return ep.switch || String(ep.id || "").replace(/:[^:]*$/, "");
}

/* Known not loaded (from the last status): skip its URLs rather than fetch
 * a 404 the browser's console would report. */
function notLoaded(id) {
  const st = state.status;
  return st && st.napps && !st.napps[id];
}

function switchLabel(sw) { return sw.data_path || sw.name || sw.id; }

async function refreshNetwork() {
  let sws, links;
  if (notLoaded("kytos/topology")) {
    notice("net-msg", "kytos/topology is not loaded: enable it under NApps to see the network.");
    document.getElementById("graph").replaceChildren();
    document.getElementById("graph").style.display = "none";
    document.getElementById("evcs").replaceChildren();
    notice("evc-msg", "");
    return;
  }
  document.getElementById("graph").style.display = "";
  try {
    [sws, links] = await Promise.all([getJSON(API + "topology/v3/switches"), getJSON(API + "topology/v3/links")]);
  } catch (e) {
    notice("net-msg", e.status === 404 ? "kytos/topology is not loaded: enable it under NApps to see the network."
      : "topology: " + e.message);
    document.getElementById("graph").replaceChildren();
    document.getElementById("graph").style.display = "none";
    document.getElementById("evcs").replaceChildren();
    return;
  }
  notice("net-msg", "");
  let evcs = {};
  try {
    if (notLoaded("kytos/mef_eline")) { const e = new Error("not loaded"); e.status = 404; throw e; }
    evcs = await getJSON(API + "mef_eline/v2/evc/");
    notice("evc-msg", Object.keys(evcs).length ? "" : "No EVC yet.");
  } catch (e) {
    notice("evc-msg", e.status === 404 ? "kytos/mef_eline is not loaded: no EVCs to show." : "mef_eline: " + e.message);
  }
  state.evcs = evcs;
  drawGraph(sws.switches || {}, links.links || {}, evcs);
  renderEvcs(evcs);
}

function drawGraph(switches, links, evcs) {
  const svg = document.getElementById("graph");
  const ids = Object.keys(switches).sort();
  const W = 600, H = 420, cx = W / 2, cy = H / 2, R = Math.min(W, H) / 2 - 50;
  const pos = {};
  ids.forEach((id, i) => {
    const a = (2 * Math.PI * i) / Math.max(1, ids.length) - Math.PI / 2;
    pos[id] = ids.length === 1 ? [cx, cy] : [cx + R * Math.cos(a), cy + R * Math.sin(a)];
  });
  const kids = [];
  Object.values(evcs).forEach((evc, k) => {
    const color = COLORS[k % COLORS.length];
    for (const l of evc.current_path || []) {
      const a = pos[switchOf(l.endpoint_a)], b = pos[switchOf(l.endpoint_b)];
      if (!a || !b) continue;
      kids.push(el("line", { class: "evc-path" + (state.highlight === evc.id ? " hl" : ""), "data-evc": evc.name || evc.id,
        x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: color }));
    }
  });
  for (const l of Object.values(links)) {
    const a = pos[(l.endpoint_a || {}).switch], b = pos[(l.endpoint_b || {}).switch];
    if (!a || !b) continue;
    const up = l.status ? l.status === "UP" : (l.active && l.enabled);
    kids.push(el("line", { class: "link " + (up ? "up" : "down"), "data-link": l.id,
      "data-status": up ? "up" : "down", x1: a[0], y1: a[1], x2: b[0], y2: b[1] },
      el("title", { text: (l.endpoint_a || {}).name + " – " + (l.endpoint_b || {}).name + (up ? "" : " (down)") })));
  }
  for (const id of ids) {
    const sw = switches[id], [x, y] = pos[id], on = sw.active !== false && sw.enabled !== false;
    kids.push(el("g", { class: "sw" + (on ? "" : " off"), "data-dpid": id },
      el("circle", { cx: x, cy: y, r: 18 }),
      el("text", { x, y: y + 36, class: "sw-label", text: switchLabel(sw) }),
      el("title", { text: id })));
  }
  svg.replaceChildren(...kids);
}

function renderEvcs(evcs) {
  const ul = document.getElementById("evcs");
  ul.replaceChildren(...Object.values(evcs).map((evc, k) => el("li", {
    "data-evc": evc.name || evc.id,
    onmouseenter: () => { state.highlight = evc.id; highlight(); },
    onmouseleave: () => { state.highlight = null; highlight(); },
  }, el("span", { class: "swatch", style: "background:" + COLORS[k % COLORS.length] }),
     el("b", { text: evc.name || evc.id }),
     el("span", { class: evc.active ? "state-enabled" : "state-disabled", text: evc.active ? "active" : "inactive" }),
     el("span", { class: "muted", text: (evc.current_path || []).length + " links" }))));
}

function highlight() {
  const evc = state.evcs[state.highlight] || {};
  document.querySelectorAll(".evc-path").forEach((p) =>
    p.classList.toggle("hl", !!state.highlight && p.dataset.evc === (evc.name || evc.id)));
}

/* ---- streams ---- */

function feed(listId, max, make) {
  const ol = document.getElementById(listId);
  return (msg) => {
    let d;
    try { d = JSON.parse(msg.data); } catch (e) { return; }
    ol.prepend(make(d));
    while (ol.children.length > max) ol.lastChild.remove();
  };
}

function follow() {
  const ev = new EventSource(API + "core/events/stream?content=false&tail=30");
  ev.onmessage = feed("event-list", 60, (d) => el("li", {
    text: new Date(d.timestamp * 1000).toLocaleTimeString() + "  " + d.name }));
  ev.addEventListener("message", (m) => {
    if (/topology|mef_eline|simnet/.test(m.data)) refreshNetwork().catch(() => {});
  });
  const lg = new EventSource(API + "core/logs/stream?level=INFO&tail=40");
  lg.onmessage = feed("log-list", 80, (d) => el("li", { class: "lvl-" + d.level, text: d.line }));
}

/* ---- main loop ---- */

/* The status first: it tells which NApps are loaded before their URLs
 * are asked. */
async function tick() {
  try {
    await refreshHost();
  } catch (e) {
    const b = document.getElementById("health");
    b.textContent = "unreachable"; b.className = "badge bad";
  }
  await refreshNetwork().catch(() => {});
}

async function start() {
  setupCharts();
  try {
    const md = await getJSON(API + "core/metadata/");
    document.getElementById("version").textContent = md.__version__ || "";
    state.config = await getJSON(API + "core/config/");
  } catch (e) { /* shown as unreachable by tick */ }
  await refreshRoutes();
  await tick();
  follow();
  setInterval(tick, 1000);
  setInterval(refreshRoutes, 5000);
}

start();
