/// The dashboard's single page: HTML with inline CSS, JavaScript and SVG (no CDN, works offline).
///
/// The script fetches `/api/overview` on load and every 5 seconds and renders it. Stable hooks for
/// tests and scrapers: `body[data-state]` (`loading`, `ready`, `error`); `#total-<state>`;
/// `td[data-kind][data-field]` in the queue table; `[data-production][data-field]`;
/// `#workers-alive`, `#workers-stale`, `#workers-stopped`; `#failures-count`;
/// `#throughput-succeeded`, `#throughput-failed` and the chart `#throughput-chart`;
/// `[data-limit][data-field]` in the limits table and `[data-paused]` for each paused queue or kind;
/// `[data-usage][data-field]` in the usage table (`data-usage` is `provider/model/capability`).
enum DashboardPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Reparto</title>
<style>
:root { --bg:#f6f7f9; --card:#fff; --ink:#1d2433; --muted:#6b7385; --line:#e3e6eb;
        --ok:#2f9e5b; --run:#3b7bd8; --wait:#c99a1a; --bad:#d2453b; --dead:#8a1f17; }
* { box-sizing: border-box; }
body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; background:var(--bg); color:var(--ink); }
header { display:flex; align-items:baseline; gap:16px; padding:14px 24px; background:var(--ink); color:#fff; }
header h1 { margin:0; font-size:18px; letter-spacing:.02em; }
header .meta { color:#b8c0d0; font-size:12px; }
#status-badge { margin-left:auto; font-size:12px; padding:2px 8px; border-radius:10px; background:#44506a; }
body[data-state="ready"] #status-badge { background:var(--ok); }
body[data-state="error"] #status-badge { background:var(--bad); }
main { display:grid; grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); gap:16px; padding:16px 24px; }
section { background:var(--card); border:1px solid var(--line); border-radius:8px; padding:12px 16px; min-width:0; }
section h2 { margin:0 0 8px; font-size:14px; text-transform:uppercase; letter-spacing:.06em; color:var(--muted); }
.totals { display:flex; gap:10px; flex-wrap:wrap; grid-column: 1 / -1; }
.total { flex:1; min-width:120px; background:var(--card); border:1px solid var(--line); border-radius:8px; padding:10px 14px; }
.total .n { font-size:26px; font-weight:600; font-variant-numeric: tabular-nums; }
.total .l { color:var(--muted); font-size:12px; text-transform:uppercase; letter-spacing:.06em; }
.total.queued .n { color:var(--wait); } .total.running .n { color:var(--run); } .total.succeeded .n { color:var(--ok); }
.total.failed .n { color:var(--bad); } .total.dead .n { color:var(--dead); }
table { width:100%; border-collapse:collapse; font-variant-numeric: tabular-nums; }
th, td { text-align:right; padding:4px 6px; border-bottom:1px solid var(--line); white-space:nowrap; }
th:first-child, td:first-child { text-align:left; }
th { color:var(--muted); font-weight:500; font-size:12px; }
.empty { color:var(--muted); font-style:italic; padding:6px 0; }
.production { padding:8px 0; border-bottom:1px solid var(--line); }
.production .top { display:flex; gap:8px; align-items:baseline; }
.production .name { font-weight:600; overflow:hidden; text-overflow:ellipsis; }
.production .state { font-size:12px; color:var(--muted); }
.production .right { margin-left:auto; color:var(--muted); font-size:12px; white-space:nowrap; }
.bar { display:flex; height:10px; border-radius:5px; overflow:hidden; background:var(--line); margin-top:4px; }
.bar span { display:block; height:100%; }
.bar .s { background:var(--ok); } .bar .f { background:var(--bad); } .bar .c { background:#9aa3b5; } .bar .r { background:var(--run); }
.pill { display:inline-block; padding:0 7px; border-radius:9px; font-size:12px; color:#fff; }
.pill.alive { background:var(--ok); } .pill.stale { background:var(--wait); } .pill.stopped { background:#9aa3b5; }
.pill.dead { background:var(--dead); } .pill.failed { background:var(--bad); }
.counts { display:flex; gap:14px; margin-bottom:8px; }
.counts b { font-size:18px; }
.failure { padding:6px 0; border-bottom:1px solid var(--line); }
.failure .err { font-family: ui-monospace, Menlo, monospace; font-size:12px; color:var(--bad); white-space:pre-wrap; word-break:break-word; }
.failure .when { color:var(--muted); font-size:12px; }
#throughput-chart { width:100%; height:140px; display:block; }
.legend { color:var(--muted); font-size:12px; }
.legend i { display:inline-block; width:10px; height:10px; margin:0 4px 0 10px; vertical-align:-1px; }
#error-text { color:#ffd0cc; font-size:12px; }
</style>
</head>
<body data-state="loading">
<header>
  <h1>Reparto</h1>
  <span class="meta">updated <span id="updated-at">never</span></span>
  <span id="error-text"></span>
  <span id="status-badge">loading</span>
</header>
<main>
  <div class="totals">
    <div class="total queued"><div class="n" id="total-queued">–</div><div class="l">queued</div></div>
    <div class="total running"><div class="n" id="total-running">–</div><div class="l">running</div></div>
    <div class="total succeeded"><div class="n" id="total-succeeded">–</div><div class="l">succeeded</div></div>
    <div class="total failed"><div class="n" id="total-failed">–</div><div class="l">retrying</div></div>
    <div class="total dead"><div class="n" id="total-dead">–</div><div class="l">dead</div></div>
  </div>
  <section id="queues">
    <h2>Queues by kind</h2>
    <table>
      <thead><tr><th>kind</th><th>queued</th><th>running</th><th>retrying</th><th>dead</th><th>succeeded</th><th>p50 ms</th><th>p95 ms</th><th>oldest queued</th></tr></thead>
      <tbody id="queue-rows"></tbody>
    </table>
  </section>
  <section id="throughput">
    <h2>Throughput, last hour</h2>
    <svg id="throughput-chart" viewBox="0 0 600 140" preserveAspectRatio="none" role="img" aria-label="jobs finished per minute"></svg>
    <div class="legend">per minute<i style="background:var(--ok)"></i>succeeded <b id="throughput-succeeded">0</b>
      <i style="background:var(--bad)"></i>failed <b id="throughput-failed">0</b></div>
  </section>
  <section id="productions">
    <h2>Productions</h2>
    <div id="production-rows"></div>
  </section>
  <section id="workers">
    <h2>Workers</h2>
    <div class="counts">
      <span><span class="pill alive">alive</span> <b id="workers-alive">–</b></span>
      <span><span class="pill stale">stale</span> <b id="workers-stale">–</b></span>
      <span><span class="pill stopped">stopped</span> <b id="workers-stopped">–</b></span>
    </div>
    <table>
      <thead><tr><th>worker</th><th>status</th><th>queues</th><th>in flight</th><th>succeeded</th><th>failed</th><th>heartbeat</th></tr></thead>
      <tbody id="worker-rows"></tbody>
    </table>
  </section>
  <section id="controls">
    <h2>Limits and pauses</h2>
    <div id="pause-rows"></div>
    <table>
      <thead><tr><th>limit</th><th>terms</th><th>running</th><th>waiting</th><th>tokens</th><th>blocked until</th></tr></thead>
      <tbody id="limit-rows"></tbody>
    </table>
  </section>
  <div id="production-views"></div>
  <section id="usage">
    <h2>Generation usage, last 24 hours</h2>
    <table>
      <thead><tr><th>provider</th><th>model</th><th>capability</th><th>calls</th><th>reused</th><th>tokens in</th><th>tokens out</th><th>characters</th><th>images</th><th>audio s</th></tr></thead>
      <tbody id="usage-rows"></tbody>
    </table>
  </section>
  <section id="failures">
    <h2>Recent failures (<span id="failures-count">–</span>)</h2>
    <div id="failure-rows"></div>
  </section>
</main>
<script>
"use strict";
const REFRESH_MS = 5000;
function esc(value) {
  return String(value ?? "").replace(/[&<>"']/g, c => ({"&":"&amp;","<":"&lt;",">":"&gt;","\"":"&quot;","'":"&#39;"}[c]));
}
function ago(iso, now) {
  if (!iso) return "–";
  const s = Math.round((now - Date.parse(iso)) / 1000);
  if (s < 0) return "in " + span(-s);
  return span(s) + " ago";
}
function span(s) {
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m " + (s % 60) + "s";
  return Math.floor(s / 3600) + "h " + Math.floor((s % 3600) / 60) + "m";
}
function num(v) { return v === null || v === undefined ? "–" : String(v); }
function text(id, value) { document.getElementById(id).textContent = value; }

function renderTotals(t) {
  for (const k of ["queued", "running", "succeeded", "failed", "dead"]) text("total-" + k, t[k]);
}
function renderQueues(rows, now) {
  const body = document.getElementById("queue-rows");
  if (!rows.length) { body.innerHTML = '<tr><td class="empty" colspan="9">no jobs yet</td></tr>'; return; }
  body.innerHTML = rows.map(r => {
    const k = esc(r.kind);
    const cell = f => '<td data-kind="' + k + '" data-field="' + f + '">' + r[f] + '</td>';
    return '<tr data-kind="' + k + '"><td>' + k + '</td>' + cell("queued") + cell("running") + cell("failed") +
      cell("dead") + cell("succeeded") + '<td>' + num(r.p50_ms) + '</td><td>' + num(r.p95_ms) + '</td><td>' +
      (r.oldest_queued_at ? ago(r.oldest_queued_at, now) : "–") + '</td></tr>';
  }).join("");
}
function renderProductions(rows, now) {
  const box = document.getElementById("production-rows");
  if (!rows.length) { box.innerHTML = '<div class="empty">no productions</div>'; return; }
  box.innerHTML = rows.map(p => {
    const id = esc(p.id);
    const pct = n => p.total ? (100 * n / p.total).toFixed(2) + "%" : "0%";
    const eta = p.state === "running" ? (p.eta ? "ETA " + ago(p.eta, now) : "ETA –") : (p.finished_at ? "finished " + ago(p.finished_at, now) : "");
    return '<div class="production" data-production="' + id + '">' +
      '<div class="top"><span class="name">' + esc(p.name || p.id) + '</span>' +
      '<span class="state">' + esc(p.plan) + ' · ' + esc(p.stage) + ' · ' + esc(p.state) + '</span>' +
      '<span class="right"><span data-production="' + id + '" data-field="done">' + p.done + '</span>/' +
      '<span data-production="' + id + '" data-field="total">' + p.total + '</span> · ' +
      '<span data-production="' + id + '" data-field="percent">' + p.percent + '</span>% · ' +
      '<span data-production="' + id + '" data-field="eta">' + esc(eta) + '</span></span></div>' +
      '<div class="bar" title="succeeded ' + p.succeeded + ', failed ' + p.failed + ', cancelled ' + p.cancelled + ', running ' + p.running + '">' +
      '<span class="s" style="width:' + pct(p.succeeded) + '"></span><span class="f" style="width:' + pct(p.failed) + '"></span>' +
      '<span class="c" style="width:' + pct(p.cancelled) + '"></span><span class="r" style="width:' + pct(p.running) + '"></span></div></div>';
  }).join("");
}
function renderWorkers(rows, counts, now) {
  text("workers-alive", counts.alive); text("workers-stale", counts.stale); text("workers-stopped", counts.stopped);
  const body = document.getElementById("worker-rows");
  if (!rows.length) { body.innerHTML = '<tr><td class="empty" colspan="7">no workers</td></tr>'; return; }
  body.innerHTML = rows.map(w => '<tr data-worker="' + esc(w.id) + '"><td>' + esc(w.host) + ':' + w.pid + '</td>' +
    '<td><span class="pill ' + esc(w.status) + '">' + esc(w.status) + '</span></td><td>' + esc(w.queues.join(", ")) + '</td>' +
    '<td>' + w.in_flight + '</td><td>' + w.jobs_succeeded + '</td><td>' + w.jobs_failed + '</td><td>' + ago(w.heartbeat_at, now) + '</td></tr>').join("");
}
function renderProductionViews(views) {
  // Each production type's own view (ops.book_imports, …), as its columns come.
  const box = document.getElementById("production-views");
  const cell = v => v === null || v === undefined ? "–" : esc(v);
  box.innerHTML = (views || []).map(v => '<section data-view="' + esc(v.name) + '"><h2>' + esc(v.title) + '</h2><table><thead><tr>' +
    v.columns.map(c => '<th>' + esc(c.replace(/_/g, " ")) + '</th>').join("") + '</tr></thead><tbody>' +
    (v.rows.length ? v.rows.map(r => '<tr data-row="' + cell(r[0]) + '">' + r.map(x => '<td>' + cell(x) + '</td>').join("") + '</tr>').join("")
                   : '<tr><td class="empty" colspan="' + v.columns.length + '">none</td></tr>') +
    '</tbody></table></section>').join("");
}
function renderControls(limits, pauses, now) {
  const box = document.getElementById("pause-rows");
  box.innerHTML = pauses.length ? pauses.map(p => '<div data-paused="' + esc(p.scope) + ':' + esc(p.name) + '">' +
    '<span class="pill stale">paused</span> ' + esc(p.scope) + ' <b>' + esc(p.name) + '</b> · ' + p.parked + ' parked · since ' +
    ago(p.paused_at, now) + '</div>').join("") : '<div class="empty">nothing paused</div>';
  const body = document.getElementById("limit-rows");
  if (!limits.length) { body.innerHTML = '<tr><td class="empty" colspan="6">no limits</td></tr>'; return; }
  body.innerHTML = limits.map(l => {
    const n = esc(l.name);
    const terms = [];
    if (l.rate_per_second != null) terms.push(l.rate_per_second + "/s burst " + l.burst);
    if (l.concurrency != null) terms.push("concurrency " + l.concurrency);
    if (l.budget != null) terms.push("budget " + l.budget + " per " + l.budget_window_seconds + "s");
    const cell = (f, v) => '<td data-limit="' + n + '" data-field="' + f + '">' + v + '</td>';
    return '<tr><td>' + n + '</td><td>' + esc(terms.join(", ")) + '</td>' + cell("running", l.running) + cell("waiting", l.waiting) +
      cell("tokens", l.tokens == null ? "–" : l.tokens.toFixed(2)) + cell("blocked", l.blocked_until ? ago(l.blocked_until, now) : "–") + '</tr>';
  }).join("");
}
function renderUsage(rows) {
  const body = document.getElementById("usage-rows");
  if (!rows.length) { body.innerHTML = '<tr><td class="empty" colspan="10">no generation in the last day</td></tr>'; return; }
  body.innerHTML = rows.map(u => {
    const key = esc(u.provider + "/" + u.model + "/" + u.capability);
    const cell = (f, v) => '<td data-usage="' + key + '" data-field="' + f + '">' + v + '</td>';
    return '<tr><td>' + esc(u.provider) + '</td><td>' + esc(u.model) + '</td><td>' + esc(u.capability) + '</td>' +
      cell("calls", u.calls) + cell("reused", u.reused) + cell("input_tokens", u.input_tokens) + cell("output_tokens", u.output_tokens) +
      cell("characters", u.characters) + cell("images", u.images) + cell("audio_seconds", u.audio_seconds.toFixed(2)) + '</tr>';
  }).join("");
}
function renderFailures(rows, now) {
  text("failures-count", rows.length);
  const box = document.getElementById("failure-rows");
  if (!rows.length) { box.innerHTML = '<div class="empty">no failures in the last day</div>'; return; }
  box.innerHTML = rows.map(f => '<div class="failure" data-job="' + esc(f.id) + '">' +
    '<span class="pill ' + esc(f.state) + '">' + esc(f.state) + '</span> <b>' + esc(f.kind) + '</b> attempt ' + f.attempts + '/' + f.max_attempts +
    ' <span class="when">' + ago(f.finished_at, now) + '</span><div class="err">' + esc(f.last_error) + '</div></div>').join("");
}
function renderThroughput(points, now) {
  const svg = document.getElementById("throughput-chart");
  const W = 600, H = 140, top = 8, bottom = 18, minutes = 60;
  const end = Math.floor(now / 60000) * 60000, start = end - (minutes - 1) * 60000;
  const byMinute = new Map(points.map(p => [Math.floor(Date.parse(p.minute) / 60000) * 60000, p]));
  let max = 1, okTotal = 0, badTotal = 0;
  for (const p of points) { max = Math.max(max, p.succeeded + p.failed); okTotal += p.succeeded; badTotal += p.failed; }
  text("throughput-succeeded", okTotal); text("throughput-failed", badTotal);
  const bw = W / minutes, scale = (H - top - bottom) / max;
  let out = '<line x1="0" y1="' + (H - bottom) + '" x2="' + W + '" y2="' + (H - bottom) + '" stroke="#e3e6eb"/>';
  for (let i = 0; i < minutes; i++) {
    const t = start + i * 60000, p = byMinute.get(t);
    if (!p) continue;
    const x = (i * bw + 1).toFixed(1), okH = p.succeeded * scale, badH = p.failed * scale;
    const label = new Date(t).toISOString().slice(11, 16) + " UTC: " + p.succeeded + " succeeded, " + p.failed + " failed";
    out += '<g data-minute="' + new Date(t).toISOString() + '" data-succeeded="' + p.succeeded + '" data-failed="' + p.failed + '"><title>' + label + '</title>' +
      '<rect x="' + x + '" y="' + (H - bottom - okH).toFixed(1) + '" width="' + (bw - 2).toFixed(1) + '" height="' + okH.toFixed(1) + '" fill="#2f9e5b"/>' +
      '<rect x="' + x + '" y="' + (H - bottom - okH - badH).toFixed(1) + '" width="' + (bw - 2).toFixed(1) + '" height="' + badH.toFixed(1) + '" fill="#d2453b"/></g>';
  }
  out += '<text x="0" y="' + (H - 4) + '" font-size="10" fill="#6b7385">-60 min</text>' +
    '<text x="' + W + '" y="' + (H - 4) + '" font-size="10" fill="#6b7385" text-anchor="end">now</text>' +
    '<text x="2" y="' + (top + 8) + '" font-size="10" fill="#6b7385">' + max + '/min</text>';
  svg.innerHTML = out;
}
async function refresh() {
  try {
    const response = await fetch("api/overview", { cache: "no-store" });
    if (!response.ok) throw new Error("HTTP " + response.status);
    const data = await response.json();
    const now = Date.parse(data.generated_at);
    renderTotals(data.totals);
    renderQueues(data.queues, now);
    renderProductions(data.productions, now);
    renderWorkers(data.workers, data.worker_counts, now);
    renderFailures(data.failures, now);
    renderControls(data.limits, data.pauses, now);
    renderProductionViews(data.production_views);
    renderUsage(data.usage);
    renderThroughput(data.throughput, now);
    text("updated-at", new Date(now).toISOString().replace("T", " ").slice(0, 19) + " UTC");
    text("error-text", "");
    text("status-badge", "live");
    document.body.dataset.state = "ready";
  } catch (error) {
    text("error-text", "cannot load: " + error.message);
    text("status-badge", "offline");
    document.body.dataset.state = "error";
  }
}
refresh();
setInterval(refresh, REFRESH_MS);
</script>
</body>
</html>
"""#
}
