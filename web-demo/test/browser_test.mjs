// The web demo in a real browser: serves out/web/ (built by
// scripts/web_demo.sh) on localhost, opens it in headless Chromium (Debian's
// package), and checks what a visitor would notice:
//
// 1. before any gesture the engine is suspended (the browser's autoplay
//    policy is set to require one) and mixes nothing, and suspended by the
//    page it holds its clock;
// 2. a click starts the sound (the engine resumes itself on a gesture: the
//    page does not ask it to); keys cast spells for several seconds; the
//    mixer keeps up with real time, voices are stolen and the page marks
//    it, the ambience goes virtual, and an analyser on the engine's output
//    hears sound;
// 3. the same with 64 voices and casts twice as fast: the callback's worst
//    time is reported against its budget;
// 4. shutting the engine down ends every play in flight (one terminal
//    event each), also after the page closed the audio under it (which is
//    reported as a lost device), and no error reached the console;
// 5. a Bevy app with voicepool_bevy's live output (out/web-bevy/, from
//    web-demo/bevy/) starts its sound on a click, keeps real time, and
//    steals, with no error.
//
// A screenshot of each page goes to out/. Nothing is left running: the
// browser and the server are closed on every path out.
//
//   node web-demo/test/browser_test.mjs [seconds]
import { createServer } from "node:http";
import { readFile, mkdir } from "node:fs/promises";
import { extname, join, normalize } from "node:path";
import { chromium } from "playwright-core";

const root = new URL("../../out/", import.meta.url).pathname;
const seconds = Number(process.argv[2]) || 6;
const types = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm" };

const server = createServer(async (req, res) => {
  const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^\/+/, "");
  const file = !path || path.endsWith("/") ? `${path}index.html` : path;
  try {
    const body = await readFile(join(root, file));
    res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
    res.end(body);
  } catch {
    res.writeHead(404);
    res.end();
  }
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const base = `http://127.0.0.1:${server.address().port}/web/`;
const bevyPage = `http://127.0.0.1:${server.address().port}/web-bevy/`;

const failures = [];
const check = (ok, what) => {
  console.log(`  ${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failures.push(what);
};

let browser;
try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      // Desktop Chrome's policy (also its default): a page's audio starts
      // after the visitor's first gesture. (Chromium 156 lets an
      // AudioContext run at once under "user-gesture-required".)
      "--autoplay-policy=document-user-activation-required",
    ],
  });
  await mkdir(new URL("../../out/", import.meta.url), { recursive: true });
  // The second page streams its ambience (24 kHz) at pitch 3 in Web Audio's
  // largest buffers (16,384 frames, which read 26,700 of the sound: more
  // than a stream's 24,000-frame ring), and seeks it while it plays.
  for (const [voices, every, stream] of [[12, 320, false], [64, 160, true]]) {
    const extra = stream ? "&pitch=3&buffer=16384" : "";
    console.log(`web demo, ${voices} voices, a cast every ${every} ms for ${seconds} s${stream ? ", the ambience streamed at pitch 3 in 16,384-frame buffers and seeked" : ""}:`);
    const page = await browser.newPage({ viewport: { width: 1100, height: 900 + voices * 24 } });
    const console_errors = [];
    page.on("console", (m) => { if (m.type() === "error") console_errors.push(m.text()); });
    page.on("pageerror", (e) => console_errors.push(String(e)));
    await page.goto(`${base}?voices=${voices}&stream=${stream ? 1 : 0}${extra}`);
    await page.waitForFunction(() => window.voicepool?.report().view);
    await page.waitForTimeout(300);
    const before = await page.evaluate(() => window.voicepool.report());
    // Chromium under automation now and then lets a page's audio start
    // before any gesture (no gesture reached the page: it is the
    // browser's call); a suspended engine must have mixed nothing.
    check(before.view.state === "playing" || (before.view.state === "suspended" && before.view.frames === 0),
      `before a gesture: ${before.view.state}, ${before.view.frames} frames mixed (gestures seen: ${before.gestures.join(", ") || "none"})`);
    // Suspended as a browser may do it, whether or not it ran: the clock holds.
    await page.evaluate(() => window.voicepool.suspend());
    const held = await page.evaluate(() => window.voicepool.report().view);
    await page.waitForTimeout(300);
    const still = await page.evaluate(() => window.voicepool.report().view);
    check(still.state === "suspended" && still.frames === held.frames,
      `suspended: nothing mixed, the clock held (${held.frames} then ${still.frames} frames)`);

    await page.click("#cast");
    await page.waitForFunction(() => window.voicepool.report().view.state === "playing", null, { timeout: 5000 });
    const end = Date.now() + seconds * 1000;
    let k = 0;
    while (Date.now() < end) {
      await page.keyboard.press(["Space", "ArrowLeft", "ArrowRight"][k++ % 3]);
      if (stream && k % 12 === 6) await page.evaluate((s) => window.voicepool.seekAmbience(s), k % 5);
      await page.waitForTimeout(every);
    }
    // Mid-spell: the pool full, steals marked.
    await page.screenshot({ path: new URL(`../../out/web_demo_${voices}.png`, import.meta.url).pathname });
    const r = await page.evaluate(() => window.voicepool.report());
    const v = r.view;
    console.log(`  ${v.casts} casts, ${v.started} plays started, ${v.steals} steals, ${v.virtualized} went virtual, peak ${v.peakVoices} voices`);
    console.log(`  ${r.mixedSeconds.toFixed(2)} s mixed in ${r.wallSeconds.toFixed(2)} s; ${v.callbacks} callbacks of ${v.blockFrames} frames at ${v.rate} Hz`);
    const share = (100 * v.worstCallbackMs) / v.callbackBudgetMs;
    const load = (100 * v.callbackTimeMs) / ((1000 * v.frames) / v.rate);
    console.log(`  callbacks took ${load.toFixed(1)} % of the audio's duration; the worst ${v.worstCallbackMs.toFixed(2)} ms of a ${v.callbackBudgetMs.toFixed(1)} ms budget (${share.toFixed(1)} %), ${v.lateCallbacks} late`);
    console.log(`  output: peak RMS ${r.maxRms.toFixed(3)}, ${r.loudFrames} of ${r.drawnFrames} drawn frames above 0.01`);
    check(v.state === "playing", "a click started the sound");
    check(r.wallSeconds >= seconds * 0.9 && r.mixedSeconds >= r.wallSeconds * 0.9,
      "the mixer kept up with real time (at least 90 % of the seconds that passed were mixed)");
    check(v.casts >= seconds * 1000 / every / 2, "every key cast a spell");
    check(v.steals > 0 && r.stealMarks > 0, "voices were stolen, and the page marked it");
    if (stream) {
      check(v.streams === 1 && v.streamUnderruns === 0 && v.streamDecodeErrors === 0,
        `the streamed ambience played throughout (${v.streams} streams, ${v.streamUnderruns} underruns, ${v.streamDecodeErrors} decode errors)`);
    } else {
      check(v.virtualized > 0 && v.resumed > 0, "the ambience went virtual in a full pool, and came back");
    }
    check(v.peakVoices === voices, "the pool filled");
    check(r.maxRms > 0.02 && r.loudFrames > r.drawnFrames / 4, "the analyser on the output heard the spells");
    check(v.streamErrors === 0 && v.refused === 0, "no stream error, no play refused");
    check(v.callbacks > 10 && v.callbackAllocs === 0,
      `the audio callback allocated and freed nothing (${v.callbackAllocs} in ${v.callbacks} callbacks)`);

    if (stream) {
      // The page closes the audio under the engine: the device is lost.
      await page.evaluate(() => window.voicepool.closeAudio());
      await page.waitForTimeout(200);
      const lost = await page.evaluate(() => window.voicepool.report().view);
      check(lost.state === "closed" && lost.streamErrors === 1,
        `a context closed under the engine: closed, one stream error reported (${lost.state}, ${lost.streamErrors})`);
    }
    await page.evaluate(() => window.voicepool.shutDown());
    await page.waitForTimeout(100);
    const closed = await page.evaluate(() => window.voicepool.report().view);
    check(closed.state === "closed" && closed.inFlight === 0,
      `shut down: closed, every play ended (${closed.inFlight} in flight)`);
    const again = await page.evaluate(() => { try { window.voicepool.resume(); return "resumed"; } catch (e) { return e.message; } });
    check(/shut down/.test(again), `resuming a shut-down engine is an error that says so (${again})`);
    check(console_errors.length === 0 && r.errors.length === 0,
      `no error reached the console${console_errors.length ? `: ${console_errors.join(" | ")}` : ""}`);
    await page.close();
  }
  await bevy(browser);
} catch (e) {
  failures.push(String(e?.stack ?? e));
  console.error(e);
} finally {
  await browser?.close();
  server.close();
}
async function bevy(browser) {
  const seconds = 4;
  console.log(`voicepool_bevy in a page, bursts every 300 ms for ${seconds} s:`);
  const page = await browser.newPage({ viewport: { width: 900, height: 400 } });
  const errors = [];
  page.on("console", (m) => { if (m.type() === "error") errors.push(m.text()); });
  page.on("pageerror", (e) => errors.push(String(e)));
  await page.goto(bevyPage);
  await page.waitForFunction(() => window.bevyReport?.()?.state, null, { timeout: 20000 });
  await page.waitForTimeout(300);
  const before = await page.evaluate(() => window.bevyReport());
  check(before.state === "playing" || (before.state === "suspended" && before.frames === 0),
    `before a gesture: ${before.state}, ${before.frames} frames mixed`);
  await page.click("h1");
  await page.waitForFunction(() => window.bevyReport().state === "playing", null, { timeout: 5000 });
  const from = [Date.now(), (await page.evaluate(() => window.bevyReport())).frames];
  await page.waitForTimeout(seconds * 1000);
  const r = await page.evaluate(() => window.bevyReport());
  const wall = (Date.now() - from[0]) / 1000;
  const mixed = (r.frames - from[1]) / r.rate;
  console.log(`  ${r.bursts} bursts, ${r.started} started, ${r.stolen} stolen, ${r.ended} ended, peak ${r.peakVoices} voices; ${mixed.toFixed(2)} s mixed in ${wall.toFixed(2)} s, ${r.callbacks} callbacks, ${r.lateCallbacks} late`);
  check(r.state === "playing", "a click started the plugin's sound");
  check(mixed >= wall * 0.85, "the plugin's engine kept up with real time (at least 85 % of the seconds that passed were mixed)");
  check(r.started > 20 && r.stolen > 0 && r.rejected === 0, "the app's players started, and the full pool stole");
  check(errors.length === 0, `no error reached the console${errors.length ? `: ${errors.join(" | ")}` : ""}`);
  await page.screenshot({ path: new URL("../../out/web_bevy.png", import.meta.url).pathname });
  await page.close();
}

if (failures.length) {
  console.error(`web demo: ${failures.length} check(s) failed`);
  process.exit(1);
}
console.log("web demo: every check passed; screenshots in out/web_demo_12.png, out/web_demo_64.png, out/web_bevy.png");
