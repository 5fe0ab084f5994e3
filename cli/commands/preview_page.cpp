// The preview's one page: controls, the frame, counts and messages. Frames
// come from /frame.png (render's own bytes); /state says when the file was
// reloaded and what it says when it does not load.
#include "commands/preview.h"

namespace spritz {

const char kPreviewPage[] = R"PAGE(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>spritz preview</title>
<style>
  :root { color-scheme: dark; font: 13px/1.4 system-ui, sans-serif; }
  body { margin: 0; background: #15171c; color: #d8dce4; display: grid;
         grid-template-columns: 1fr 300px; height: 100vh; }
  main { display: flex; flex-direction: column; align-items: center; justify-content: center;
         gap: 10px; padding: 16px; min-width: 0; }
  #stage { position: relative; max-width: 100%; max-height: 80vh; line-height: 0;
           box-shadow: 0 0 0 1px #333a46; }
  #stage.checker { background: repeating-conic-gradient(#8a8f98 0 25%, #5d626b 0 50%) 0 0 / 16px 16px; }
  #stage.black { background: #000; }
  #stage.white { background: #fff; }
  #frame { max-width: 100%; max-height: 80vh; }
  #errors { display: none; width: min(100%, 720px); background: #3a1518; color: #ffb4b4;
            border: 1px solid #7a2a30; border-radius: 4px; padding: 8px 10px;
            font: 12px/1.5 ui-monospace, monospace; white-space: pre-wrap; }
  #errors.shown { display: block; }
  #transport { display: flex; gap: 6px; align-items: center; width: min(100%, 720px); }
  #transport input[type=range] { flex: 1; }
  #clock { font: 12px ui-monospace, monospace; min-width: 150px; text-align: right; }
  aside { background: #1c1f26; border-left: 1px solid #2a2f3a; padding: 14px; overflow: auto; }
  aside h1 { font-size: 15px; margin: 0 0 2px; }
  aside .file { color: #8b93a3; font-size: 12px; word-break: break-all; margin-bottom: 12px; }
  label { display: flex; justify-content: space-between; align-items: center; gap: 8px;
          margin: 6px 0; }
  input, select, button { font: inherit; background: #262b35; color: inherit;
                          border: 1px solid #3a4150; border-radius: 4px; padding: 3px 6px; }
  input[type=number], input[type=text] { width: 110px; }
  button { cursor: pointer; min-width: 34px; }
  table { width: 100%; border-collapse: collapse; margin-top: 6px; }
  td { padding: 2px 4px; border-bottom: 1px solid #2a2f3a; }
  td.n { text-align: right; font-variant-numeric: tabular-nums; }
  h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: #8b93a3;
       margin: 16px 0 4px; }
</style>
</head>
<body>
<main>
  <div id="stage" class="checker"><img id="frame" alt="the frame"></div>
  <div id="transport">
    <button id="back" title="previous frame">&#9664;|</button>
    <button id="play" title="play or pause (space)">&#9654;</button>
    <button id="fwd" title="next frame">|&#9654;</button>
    <input id="scrub" type="range" min="0" max="1" step="0.001" value="0" aria-label="time">
    <span id="clock">t = 0</span>
  </div>
  <div id="errors" role="alert"></div>
</main>
<aside>
  <h1 id="name">spritz preview</h1>
  <div class="file" id="file"></div>
  <label>Mode <select id="mode"><option value="live">live (exact time)</option>
    <option value="sheet">sheet (atlas cells)</option></select></label>
  <label id="gridrow">Sheet grid <input id="grid" type="text" value="4x4"></label>
  <label>Loop <input id="loop" type="checkbox" checked></label>
  <label>Speed <select id="speed"><option>0.25</option><option>0.5</option>
    <option selected>1</option><option>2</option><option>4</option></select></label>
  <label>Seed <input id="seed" type="number" min="0" max="4294967295" step="1"></label>
  <label>Size <input id="size" type="text" placeholder="canvas"></label>
  <label>Zoom <select id="zoom"><option value="1">1x (pixels as rendered)</option>
    <option value="2">2x</option><option value="3">3x</option></select></label>
  <label>Background <select id="bg"><option value="checker">checkerboard</option>
    <option value="black">black</option><option value="white">white</option></select></label>
  <h2>Particles alive</h2>
  <table id="counts"></table>
  <h2>About</h2>
  <div class="file">Every frame is rendered by spritz exactly as <code>spritz render --time T</code>
    writes it. Edits to the file show within a second.</div>
</aside>
<script>
"use strict";
const $ = (id) => document.getElementById(id);
// What the page shows, for people and for tests.
const ui = window.spritzPreview = {
  state: null, version: 0, time: 0, playing: false, shown: null, errors: [], loads: 0,
  fileErrors: [], frameError: null, serverError: null,
};
let inflight = false, wanted = null, lastTick = 0;

function params(t) {
  const p = new URLSearchParams({ t: String(t), v: String(ui.version) });
  if ($("seed").value !== "" && ui.state && Number($("seed").value) !== ui.state.seed)
    p.set("seed", $("seed").value);
  if ($("mode").value === "sheet") {
    const c = sheetCell();  // the atlas's shutter spans a cell
    p.set("size", c.size);
    p.set("fps", String(c.fps));
  } else if ($("size").value.trim() !== "") {
    p.set("size", $("size").value.trim());
  }
  return p;
}

function duration() {
  const s = ui.state;
  return s && s.duration > 0 ? s.duration : 1;
}

// Sheet mode: the atlas's cells (C x R spread over the duration), each shown
// for its whole-millisecond duration, as an engine plays a flipbook.
function sheetCell() {
  const m = /^(\d+)x(\d+)$/.exec($("grid").value.trim()) || [0, 4, 4];
  const n = Math.max(1, Math.min(4096, m[1] * m[2]));
  const span = duration(), frame = span / n;
  const [w, h] = ui.state ? ui.state.canvas : [256, 256];
  const size = $("size").value.trim() || (w + "x" + h);  // atlas cells: the canvas size
  return { n, frame, fps: 1 / frame, size,
           index: (t) => Math.min(n - 1, Math.max(0, Math.floor(t / frame + 1e-9))) };
}

// The exact time a frame shows: live mode steps by the effect's frames,
// sheet mode by cells.
function quantize(t) {
  if ($("mode").value === "sheet") {
    const c = sheetCell();
    return c.index(t) * c.frame;
  }
  const fps = ui.state ? ui.state.fps : 30;
  return Math.round(t * fps) / fps;
}

async function show(t) {
  wanted = t;
  if (inflight) return;
  inflight = true;
  try {
    while (wanted !== null) {
      const at = wanted;
      wanted = null;
      const q = params(at);
      const res = await fetch("/frame.png?" + q);
      if (!res.ok) {
        const body = await res.json().catch(() => ({ error: res.statusText }));
        ui.frameError = body.error;  // this request's (a bad size, say); the file may be fine
        showErrors();
        continue;
      }
      const blob = await res.blob();
      const url = URL.createObjectURL(blob);
      await new Promise((ok) => { $("frame").onload = ok; $("frame").onerror = ok; $("frame").src = url; });
      if (ui.shown && ui.shown.url) URL.revokeObjectURL(ui.shown.url);
      ui.shown = { t: at, url, blob, query: q.toString(), version: ui.version };
      ui.loads++;
      $("frame").dataset.time = String(at);
      $("clock").textContent = "t = " + at.toFixed(3) + " s" +
        ($("mode").value === "sheet" ? "  cell " + sheetCell().index(at) : "  frame " +
         Math.round(at * (ui.state ? ui.state.fps : 30)));
      counts(at, q);
      ui.frameError = null;
      showErrors();
    }
  } finally {
    inflight = false;
  }
}

async function counts(t, q) {
  const p = new URLSearchParams(q);
  p.delete("size"); p.delete("fps");
  const res = await fetch("/counts?" + p);
  if (!res.ok) return;
  const c = await res.json();
  $("counts").innerHTML = "";
  for (const e of c.emitters) {
    const tr = document.createElement("tr");
    const a = document.createElement("td"), b = document.createElement("td");
    a.textContent = e.name; b.textContent = e.alive; b.className = "n";
    tr.append(a, b);
    $("counts").append(tr);
  }
}

// What the page says: the file's messages (from /state), the last frame
// request's, and whether the server answers.
function showErrors() {
  ui.errors = [...ui.fileErrors, ui.frameError, ui.serverError].filter(Boolean);
  $("errors").textContent = ui.errors.join("\n");
  $("errors").classList.toggle("shown", ui.errors.length > 0);
}

function seek(t) {
  const d = duration();
  ui.time = Math.max(0, Math.min(d, t));
  $("scrub").value = String(ui.time);
  show(quantize(ui.time));
}

function tick(now) {
  if (ui.playing) {
    const dt = lastTick ? (now - lastTick) / 1000 : 0;
    let t = ui.time + dt * Number($("speed").value);
    if (t >= duration()) {
      if ($("loop").checked) t %= duration();
      else { t = duration(); ui.playing = false; $("play").innerHTML = "&#9654;"; }
    }
    ui.time = t;
    $("scrub").value = String(t);
    const q = quantize(t);
    if (!ui.shown || ui.shown.t !== q) show(q);
  }
  lastTick = now;
  requestAnimationFrame(tick);
}

async function poll() {
  try {
    const s = await (await fetch("/state")).json();
    const first = !ui.state;
    if (s.name !== undefined) {
      ui.state = s;
      $("name").textContent = s.name;
      $("scrub").max = String(duration());
      $("scrub").step = String(1 / Math.max(1, s.fps * 4));
      if (first) $("seed").value = String(s.seed);
    }
    $("file").textContent = s.file;
    if (s.version !== ui.version) {
      ui.version = s.version;
      ui.fileErrors = s.errors;
      showErrors();
      // A file that no longer loads keeps the last good frame on show.
      if (!s.errors.length || first) show(quantize(ui.time));
    }
    if (ui.serverError) { ui.serverError = null; showErrors(); }
  } catch (e) {
    ui.serverError = "the preview server is not answering (stopped?)";
    showErrors();
  }
  setTimeout(poll, 150);
}

$("play").onclick = () => {
  ui.playing = !ui.playing;
  $("play").innerHTML = ui.playing ? "&#10074;&#10074;" : "&#9654;";
};
const step = (k) => {
  ui.playing = false;
  $("play").innerHTML = "&#9654;";
  const per = $("mode").value === "sheet" ? sheetCell().frame : 1 / (ui.state ? ui.state.fps : 30);
  seek(quantize(ui.time) + k * per + 1e-9);
};
$("back").onclick = () => step(-1);
$("fwd").onclick = () => step(1);
$("scrub").addEventListener("input", () => seek(Number($("scrub").value)));
for (const id of ["seed", "size", "grid", "mode"]) $(id).addEventListener("change", () => show(quantize(ui.time)));
$("bg").onchange = () => { $("stage").className = $("bg").value; };
const zoom = () => {
  const z = Number($("zoom").value), img = $("frame");
  img.style.width = img.naturalWidth ? img.naturalWidth * z + "px" : "";
  img.style.imageRendering = z > 1 ? "pixelated" : "auto";
};
$("zoom").onchange = zoom;
$("frame").addEventListener("load", zoom);
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT" && e.target.type !== "range") return;
  if (e.key === " ") { e.preventDefault(); $("play").click(); }
  if (e.key === "ArrowLeft") step(-1);
  if (e.key === "ArrowRight") step(1);
});
poll();
requestAnimationFrame(tick);
</script>
</body>
</html>
)PAGE";

}  // namespace spritz
