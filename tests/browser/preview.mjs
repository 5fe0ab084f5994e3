// Drives `spritz preview` as an author would, in headless Chromium: the
// page plays, a scrub shows the exact frame `render --time` writes (byte
// for byte), an edit to the file shows within a second, a broken file shows
// its message and keeps the last good frame, sheet mode steps by cells; and
// the server refuses what it must (another Host, other methods, paths, bad
// parameters) and stops cleanly on SIGINT.
//
//   node tests/browser/preview.mjs SPRITZ EFFECT_COPY
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const [spritz, effect] = process.argv.slice(2);
const dir = path.dirname(effect);
let failed = 0;
const check = (what, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ': ' + detail : ''}`);
  if (!ok) failed++;
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const render = (t) => {
  const out = path.join(dir, `truth_${t}.png`);
  execFileSync(spritz, ['render', effect, '--time', String(t), '-o', out, '-q']);
  return fs.readFileSync(out);
};
const request = (url, { method = 'GET', host } = {}) =>
  new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = http.request({ host: '127.0.0.1', port: u.port, path: u.pathname + u.search, method,
      headers: host ? { Host: host } : {} }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });

const server = spawn(spritz, ['preview', effect, '--port', '0', '-q'], { stdio: ['ignore', 'pipe', 'pipe'] });
process.on('exit', () => server.kill('SIGKILL'));  // never left running by a failed check
let stderr = '';
server.stderr.on('data', (c) => (stderr += c));
const url = await new Promise((resolve, reject) => {
  let out = '';
  server.stdout.on('data', (c) => {
    out += c;
    if (out.includes('\n')) resolve(out.split('\n')[0].trim());
  });
  server.on('exit', (code) => reject(new Error(`preview exited ${code}: ${stderr}`)));
});
check('the address is on 127.0.0.1', /^http:\/\/127\.0\.0\.1:\d+\/$/.test(url), url);

// The server's refusals, without a browser.
check('another Host is refused (DNS rebinding)',
  (await request(url + 'state', { host: 'attacker.example:80' })).status === 403);
check('a POST is refused', (await request(url + 'state', { method: 'POST' })).status === 405);
check('a file path is not served', (await request(url + '..%2f..%2fetc%2fpasswd')).status === 404);
check('/etc/passwd is not served', (await request(url + 'etc/passwd')).status === 404);
const bad = await request(url + 'frame.png?t=nan');
check('a bad time is a 400 with a message', bad.status === 400 && bad.body.includes('finite'), bad.body);
check('an unknown parameter is a 400', (await request(url + 'frame.png?t=1&path=/etc/passwd')).status === 400);
check('an oversized frame is a 400', (await request(url + 'frame.png?t=1&size=8192x8192')).status === 400);

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox'],
});
const bytesShown = (page) => page.evaluate(async () => {
  const b = new Uint8Array(await window.spritzPreview.shown.blob.arrayBuffer());
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s);
});
const until = async (page, fn, arg, ms = 5000) => {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (await page.evaluate(fn, arg)) return Date.now() - t0;
    await sleep(20);
  }
  return -1;
};
try {
  const page = await browser.newPage();
  await page.setViewport({ width: 1100, height: 700 });
  await page.goto(url, { waitUntil: 'load' });
  check('the page shows a first frame', (await until(page, () => window.spritzPreview.loads > 0)) >= 0);
  await until(page, () => document.querySelectorAll('#counts td').length > 0);
  const names = await page.evaluate(() => [...document.querySelectorAll('#counts td:first-child')].map((td) => td.textContent));
  check('particle counts per emitter', names.join() === 'flame,embers,core', names.join());

  // Scrub to 0.5 s: the frame shown is render --time 0.5's file.
  await page.evaluate(() => {
    const s = document.getElementById('scrub');
    s.value = '0.5';
    s.dispatchEvent(new Event('input'));
  });
  check('the scrub shows t = 0.5', (await until(page, () => window.spritzPreview.shown.t === 0.5)) >= 0);
  const before = await bytesShown(page);
  check('the frame is render --time 0.5 byte for byte', before === render(0.5).toString('base64'));

  // Play for a moment: frames advance.
  await page.click('#play');
  await sleep(400);
  await page.click('#play');
  const played = await page.evaluate(() => window.spritzPreview.shown.t);
  check('play advances the time', played > 0.5, String(played));
  await page.evaluate(() => {
    const s = document.getElementById('scrub');
    s.value = '0.5';
    s.dispatchEvent(new Event('input'));
  });
  await until(page, () => window.spritzPreview.shown.t === 0.5);

  // An edit: the flame turns green; the page shows it within a second.
  const original = fs.readFileSync(effect, 'utf8');
  const version = await page.evaluate(() => window.spritzPreview.version);
  fs.writeFileSync(effect, original.replace(/brightness = [0-9.]+/, 'brightness = 0.4'));
  const took = await until(page, (v) => window.spritzPreview.shown.version > v, version, 3000);
  check('an edit shows within a second', took >= 0 && took < 1000, `${took} ms`);
  const edited = await bytesShown(page);
  check('the edited frame is the new render --time 0.5', edited === render(0.5).toString('base64') && edited !== before);

  // A broken file: its message (file:line:col) on the page, the last good frame kept.
  const shownUrl = await page.evaluate(() => window.spritzPreview.shown.url);
  fs.writeFileSync(effect, original.replace(/rate = [0-9.]+/, 'rate = "lots"'));
  const seen = await until(page, () => document.getElementById('errors').classList.contains('shown'), null, 3000);
  const message = await page.evaluate(() => document.getElementById('errors').textContent);
  check('a broken file shows its message', seen >= 0 && /\.toml:\d+:\d+: /.test(message), message);
  await sleep(300);
  check('the last good frame stays', (await page.evaluate(() => window.spritzPreview.shown.url)) === shownUrl);
  if (process.env.SCREENSHOT_ERROR) await page.screenshot({ path: process.env.SCREENSHOT_ERROR });
  fs.writeFileSync(effect, original);
  check('fixing it clears the message',
    (await until(page, () => !document.getElementById('errors').classList.contains('shown'), null, 3000)) >= 0);
  await until(page, (u) => window.spritzPreview.shown.url !== u, shownUrl, 3000);
  check('and shows the file again', (await bytesShown(page)) === before);

  // Seed and background.
  await page.evaluate(() => {
    const s = document.getElementById('seed');
    s.value = '5';
    s.dispatchEvent(new Event('change'));
  });
  await until(page, () => window.spritzPreview.shown.query.includes('seed=5'));
  const seeded = await bytesShown(page);
  execFileSync(spritz, ['render', effect, '--time', '0.5', '--seed', '5', '-o', path.join(dir, 's5.png'), '-q']);
  check('another seed is render --seed', seeded === fs.readFileSync(path.join(dir, 's5.png')).toString('base64'));
  await page.select('#bg', 'black');
  check('the background is black', (await page.evaluate(() => document.getElementById('stage').className)) === 'black');

  // A texture file is watched too: the flame drawn with tex.png, then
  // tex.png replaced by another picture.
  await page.evaluate(() => {
    const s = document.getElementById('seed');
    s.value = '21';
    s.dispatchEvent(new Event('change'));
  });
  await until(page, () => !window.spritzPreview.shown.query.includes('seed='));
  const coin = new URL('../../configs/textures/coin.png', import.meta.url);
  fs.copyFileSync(coin, path.join(dir, 'tex.png'));
  let v = await page.evaluate(() => window.spritzPreview.version);
  fs.writeFileSync(effect, original.replace('[[emitter]]\n', '[[emitter]]\ntexture = "tex.png"\n'));
  await until(page, (x) => window.spritzPreview.shown.version > x, v, 3000);
  const textured = await bytesShown(page);
  check('a texture file the effect names is drawn', textured === render(0.5).toString('base64') && textured !== before);
  v = await page.evaluate(() => window.spritzPreview.version);
  fs.copyFileSync(path.join(dir, 'truth_0.5.png'), path.join(dir, 'tex.png'));
  const retook = await until(page, (x) => window.spritzPreview.shown.version > x, v, 3000);
  const retextured = await bytesShown(page);
  const truth = render(0.5).toString('base64');
  check('a changed texture file shows within a second', retook >= 0 && retook < 1000 &&
    retextured === truth && retextured !== textured,
    `${retook} ms, ${retextured === truth ? 'render --time' : 'not render --time'}, ${retextured !== textured ? 'changed' : 'unchanged'}`);
  fs.writeFileSync(effect, original);
  await until(page, (x) => window.spritzPreview.shown.version > x, v + 1, 3000);

  // A bad size is this request's message, gone with the next good frame.
  const setSize = (v) => page.evaluate((x) => {
    const s = document.getElementById('size');
    s.value = x;
    s.dispatchEvent(new Event('change'));
  }, v);
  await setSize('12x');
  const sizeSeen = await until(page, () => /size/.test(document.getElementById('errors').textContent), null, 3000);
  check('a bad size shows its message', sizeSeen >= 0,
    await page.evaluate(() => document.getElementById('errors').textContent));
  await setSize('');
  check('a good frame clears it',
    (await until(page, () => !document.getElementById('errors').classList.contains('shown'), null, 3000)) >= 0);

  // Sheet mode: cells of a 4x4 atlas, stepped one at a time.
  await page.select('#mode', 'sheet');
  await until(page, () => window.spritzPreview.shown.query.includes('fps='));
  await page.click('#fwd');
  await until(page, () => window.spritzPreview.shown.t === 0.625);
  const cell = await page.evaluate(() => window.spritzPreview.shown.t);
  check('sheet mode steps by cells (2 s / 16)', cell === 0.625, String(cell));
  await page.select('#mode', 'live');
  await page.evaluate(() => {
    const s = document.getElementById('seed');
    s.value = '21';
    s.dispatchEvent(new Event('change'));
  });
  await until(page, () => !window.spritzPreview.shown.query.includes('fps='));
  await sleep(200);
  if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT });
} finally {
  await browser.close();
}

// Ctrl-C stops it cleanly.
server.kill('SIGINT');
const code = await new Promise((resolve) => server.on('exit', (c) => resolve(c)));
check('SIGINT stops the server with exit 0', code === 0, `${code}`);
console.log(failed ? `${failed} checks failed` : 'all checks passed');
process.exit(failed ? 1 : 0);
