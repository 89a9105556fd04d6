// The page of the wand-swish demo: starts voicepool's engine (suspended
// until the first click or key: browsers start audio only after a user
// gesture, and the engine resumes itself on the first), casts on clicks and
// keys, and draws the pool every frame.
// `window.voicepool.report()` gives what the page saw, for tests.
import init, { Demo } from "./pkg/voicepool_web_demo.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const voices = Math.max(1, Math.min(256, Number(params.get("voices")) || 12));
const stream = params.get("stream") === "1"; // the ambience streamed from its Ogg bytes
const pitch = Number(params.get("pitch")) || 1; // the ambience's pitch
const buffer = Number(params.get("buffer")) || 0; // Web Audio's buffer in frames (0: the engine's default)
$("voices").textContent = voices;

const seen = {
  errors: [],
  maxRms: 0,
  loudFrames: 0,
  drawnFrames: 0,
  playingSince: null, // [performance.now() ms, engine frames] when it last started playing
  lastState: null,
  last: null,
  stealMarks: 0,
};
const fail = (msg) => {
  seen.errors.push(String(msg));
  $("error").hidden = false;
  $("error").textContent = String(msg);
};
window.addEventListener("error", (e) => fail(e.message));
// The gestures the page saw (the engine resumes on these), for tests.
seen.gestures = [];
for (const kind of ["click", "keydown", "pointerup", "touchend"]) {
  window.addEventListener(kind, (e) => seen.gestures.push(`${kind}${e.isTrusted ? "" : " (untrusted)"}`), true);
}
window.addEventListener("unhandledrejection", (e) => fail(e.reason));

await init();
let demo;
try {
  demo = new Demo(voices, stream, pitch, buffer);
} catch (e) {
  fail(`voicepool could not start: ${e.message ?? e}`);
  throw e;
}
const analyser = demo.analyser();
analyser.fftSize = 2048;
const wave = new Float32Array(analyser.fftSize);

// Every cast alternates sides unless an arrow key picks one.
let side = -0.45;
function cast(pan) {
  if (pan === undefined) {
    side = -side;
    pan = side;
  }
  demo.cast(pan);
}
$("cast").addEventListener("click", () => cast());
window.addEventListener("keydown", (e) => {
  if (e.repeat || e.target instanceof HTMLInputElement) return;
  if (e.key === "ArrowLeft") cast(-0.6);
  else if (e.key === "ArrowRight") cast(0.6);
  else cast();
  e.preventDefault();
});

// "Cast on a rhythm": four casts a 2.5 s bar, as the native demo's script.
let beat = 0;
function rhythm() {
  if (!$("auto").checked) return;
  const step = [1, 1, 0.5, 1.5][beat++ % 4];
  if (demo.state() === "playing") cast();
  setTimeout(rhythm, step * 625);
}
$("auto").addEventListener("change", () => {
  beat = 0;
  rhythm();
});

// The pool's rows, made once.
const rows = [];
for (let i = 0; i < voices; i++) {
  const tr = document.createElement("tr");
  tr.innerHTML = `<td>${i}</td><td></td><td class="bar"><div style="width:0"></div></td><td class="mark"></td>`;
  $("pool").tBodies[0].appendChild(tr);
  rows.push({ tr, sound: tr.cells[1], bar: tr.cells[2].firstChild, mark: tr.cells[3], until: 0 });
}

// The timeline: ten seconds at 60 px a second, scrolled left as time
// passes; one row per slot, and a strip on top for the virtual voices.
const canvas = $("timeline");
const rowH = Math.max(3, Math.min(12, Math.floor(320 / voices)));
const strip = 12;
canvas.height = strip + voices * rowH;
const pen = canvas.getContext("2d");
const hue = (name) =>
  name === "swish" ? "hsl(0,0%,85%)"
  : name === "ambience" ? "hsl(175,55%,45%)"
  : `hsl(${[210, 255, 295, 45, 90, 135][(Number(name.replace(/\D/g, "")) + 5) % 6]},60%,55%)`;
let drawnAt = null;
let marks = []; // steals not drawn yet
function timeline(now, view) {
  marks.push(...view.stolen);
  const dx = drawnAt === null ? 0 : Math.round(((now - drawnAt) * 60) / 1000);
  if (drawnAt !== null && dx < 1) return;
  drawnAt = drawnAt === null ? now : drawnAt + (dx * 1000) / 60;
  if (dx > 0) pen.drawImage(canvas, -dx, 0);
  const x = canvas.width - Math.max(dx, 1);
  const w = Math.max(dx, 1);
  pen.fillStyle = "#0c0b12";
  pen.fillRect(x, 0, w, canvas.height);
  const v = Math.min(view.virtual.length, strip);
  pen.fillStyle = "hsl(175,55%,45%)";
  pen.fillRect(x, strip - v, w, v);
  view.slots.forEach((s, i) => {
    if (!s.sound) return;
    pen.fillStyle = hue(s.sound);
    pen.fillRect(x, strip + i * rowH, w, rowH - 1);
  });
  // (No sound's colour is red: the sparkles' hues avoid it.)
  pen.fillStyle = "#ff1a1a";
  for (const st of marks) pen.fillRect(x - 2, strip + st.slot * rowH, 3, rowH - 1);
  marks = [];
}

const dl = (el, pairs) => {
  el.innerHTML = pairs.map(([k, v]) => `<dt>${k}</dt><dd>${v}</dd>`).join("");
};

function frame(now) {
  let view;
  try {
    view = JSON.parse(demo.tick());
  } catch (e) {
    fail(e.message ?? e);
    return;
  }
  seen.last = view;
  // Since it last started playing (after a gesture, or again after a suspension).
  if (view.state === "playing" && seen.lastState !== "playing") seen.playingSince = [now, view.frames];
  seen.lastState = view.state;
  const st = $("state");
  st.textContent = view.state === "playing" ? "playing" : view.state === "suspended" ? "sound off until the first click or key" : "closed";
  st.classList.toggle("playing", view.state === "playing");

  view.slots.forEach((s, i) => {
    const r = rows[i];
    if (!r) return;
    r.sound.textContent = s.sound;
    r.bar.style.width = `${Math.min(100, Math.sqrt(s.level) * 140)}%`;
    if (now > r.until) {
      r.tr.classList.remove("stolen");
      r.mark.textContent = "";
    }
  });
  for (const s of view.stolen) {
    const r = rows[s.slot];
    if (!r) continue;
    r.tr.classList.add("stolen");
    r.mark.textContent = `${s.victim} stolen by ${s.by}`;
    r.until = now + 600;
    seen.stealMarks++;
  }
  timeline(now, view);
  $("virtual").textContent = view.virtual.length ? view.virtual.join(", ") : "none";
  dl($("counts"), [
    ["casts", view.casts],
    ["plays started", view.started],
    ["steals", view.steals],
    ["went virtual", view.virtualized],
    ["came back", view.resumed],
    ["ended", view.ended],
  ]);
  const share = view.callbackBudgetMs > 0 ? (100 * view.worstCallbackMs) / view.callbackBudgetMs : 0;
  const load = view.frames > 0 ? (100 * view.callbackTimeMs) / ((1000 * view.frames) / view.rate) : 0;
  dl($("output"), [
    ["rate", `${view.rate} Hz`],
    ["buffer", `${view.blockFrames} frames (${view.callbackBudgetMs.toFixed(1)} ms)`],
    ["seconds mixed", (view.frames / view.rate).toFixed(1)],
    ["audio callbacks", view.callbacks],
    ["mixing load", `${load.toFixed(1)} % of real time`],
    ["worst callback", `${view.worstCallbackMs.toFixed(2)} ms (${share.toFixed(1)} % of its budget)`],
    ["late callbacks", view.lateCallbacks],
    ["allocations in the audio callback", view.callbackAllocs],
  ]);

  analyser.getFloatTimeDomainData(wave);
  let sum = 0;
  for (const x of wave) sum += x * x;
  const rms = Math.sqrt(sum / wave.length);
  seen.maxRms = Math.max(seen.maxRms, rms);
  if (rms > 0.01) seen.loudFrames++;
  seen.drawnFrames++;
  requestAnimationFrame(frame);
}
requestAnimationFrame(frame);

window.voicepool = {
  // What the page saw: the last view, the output's loudness, the errors,
  // and how many seconds were mixed against the seconds that passed.
  report() {
    const v = seen.last;
    const since = seen.playingSince;
    const wall = since ? (performance.now() - since[0]) / 1000 : 0;
    const mixed = since && v ? (v.frames - since[1]) / v.rate : 0;
    return { ...seen, view: v, wallSeconds: wall, mixedSeconds: mixed };
  },
  cast,
  resume: () => demo.resume(),
  seekAmbience: (seconds) => demo.seek_ambience(seconds),
  // Suspends the page's audio as a browser may (for tests: the engine must
  // hold its clock, and the next gesture must start it again).
  suspend: () => analyser.context.suspend(),
  // Closes the page's audio under the engine (as a page's own code could).
  closeAudio: () => analyser.context.close(),
  shutDown: () => demo.shut_down(),
};
