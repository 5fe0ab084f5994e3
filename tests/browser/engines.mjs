// Loads sheets that spritz bakes with the real engine libraries (PixiJS 8,
// Phaser 3.90 and 4.2) in headless Chromium, and checks what each engine
// makes of them: every frame's rectangle, the frame order, the animation an
// engine builds from the JSON, and whole-millisecond durations that add up
// to the loop. Serves only its own folder's sheets and the engines' builds,
// on 127.0.0.1.
//
//   node tests/browser/engines.mjs SPRITZ_BINARY CONFIGS_DIR
//
// Prints one line per check and exits 1 when any fails (2 when it cannot run).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer from 'puppeteer-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const [spritz, configs] = process.argv.slice(2);
if (!spritz || !configs) {
  console.error('usage: node engines.mjs SPRITZ_BINARY CONFIGS_DIR');
  process.exit(2);
}
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';

// --- The sheets: fire_loop's 1 s loop in 4x4 cells of 64 px, three forms.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spritz_engines_'));
const bake = (name, extra) =>
  execFileSync(spritz, ['atlas', path.join(configs, 'fire_loop.toml'), '-o', path.join(dir, name + '.png'),
    '--grid', '4x4', '--cell', '64x64', '--padding', '2', '-q', ...extra]);
bake('hash', []);
bake('array', ['--meta-format', 'array']);
bake('ase', ['--meta-format', 'aseprite']);
const expected = JSON.parse(fs.readFileSync(path.join(dir, 'hash.json'), 'utf8'));

// --- The server: a fixed map of paths, nothing from the request reaches the
// file system.
const files = {
  '/pixi.js': path.join(here, 'node_modules/pixi.js/dist/pixi.min.js'),
  '/phaser4.js': path.join(here, 'node_modules/phaser/dist/phaser.min.js'),
  '/phaser3.js': path.join(here, 'node_modules/phaser3/dist/phaser.min.js'),
};
for (const f of ['hash', 'array', 'ase'])
  for (const ext of ['png', 'json']) files[`/${f}.${ext}`] = path.join(dir, `${f}.${ext}`);
const page = (script) =>
  `<!doctype html><html><body><script src="${script}"></script></body></html>`;
const server = http.createServer((req, res) => {
  const url = req.url.split('?')[0];
  if (url === '/pixi.html' || url === '/phaser4.html' || url === '/phaser3.html') {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(page(url.replace('.html', '.js')));
    return;
  }
  const file = files[url];
  if (!file) {
    res.writeHead(404);
    res.end();
    return;
  }
  const type = url.endsWith('.png') ? 'image/png' : url.endsWith('.json') ? 'application/json' : 'text/javascript';
  res.writeHead(200, { 'content-type': type });
  res.end(fs.readFileSync(file));
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

let failed = 0;
const check = (what, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ': ' + detail : ''}`);
  if (!ok) failed++;
};

// The frames spritz wrote, in order: name and rectangle.
const names = Object.keys(expected.frames);
const rects = names.map((n) => expected.frames[n].frame);
const sameRects = (got) =>
  got.length === rects.length &&
  got.every((r, i) => r.x === rects[i].x && r.y === rects[i].y && r.w === rects[i].w && r.h === rects[i].h);

const browser = await puppeteer.launch({
  executablePath: chromium,
  headless: true,
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader'],
});
try {
  // PixiJS 8: Assets.load of the JSON builds a Spritesheet.
  {
    const tab = await browser.newPage();
    await tab.goto(`${base}/pixi.html`);
    const got = await tab.evaluate(async () => {
      const sheet = await PIXI.Assets.load('/hash.json');
      const frames = Object.keys(sheet.textures).map((n) => {
        const f = sheet.textures[n].frame;
        return { name: n, x: f.x, y: f.y, w: f.width, h: f.height };
      });
      const anim = (sheet.animations.fire_loop || []).map((t) => t.label || '');
      return { frames, animation: anim.length, size: [sheet.textureSource.width, sheet.textureSource.height] };
    });
    check('PixiJS 8 reads every frame of the hash form', sameRects(got.frames),
      `${got.frames.length} frames`);
    check('PixiJS 8 keeps the frame order', got.frames.every((f, i) => f.name === names[i]));
    check('PixiJS 8 builds sheet.animations.fire_loop from the animations block', got.animation === 16,
      `${got.animation} textures`);
    check('PixiJS 8 sees the sheet size of meta.size',
      got.size[0] === expected.meta.size.w && got.size[1] === expected.meta.size.h, got.size.join('x'));
    await tab.close();
  }
  // Phaser 3.90 and 4.2: load.atlas (hash and array forms), and
  // load.aseprite + anims.createFromAseprite.
  for (const phaser of ['phaser3', 'phaser4']) {
    const tab = await browser.newPage();
    await tab.goto(`${base}/${phaser}.html`);
    const got = await tab.evaluate(
      () =>
        new Promise((resolve) => {
          class Load extends Phaser.Scene {
            preload() {
              this.load.atlas('hash', '/hash.png', '/hash.json');
              this.load.atlas('array', '/array.png', '/array.json');
              this.load.aseprite('ase', '/ase.png', '/ase.json');
            }
            create() {
              const rects = (key) =>
                this.textures.get(key).getFrameNames().map((n) => {
                  const f = this.textures.get(key).get(n);
                  return { name: n, x: f.cutX, y: f.cutY, w: f.cutWidth, h: f.cutHeight };
                });
              const tags = this.anims.createFromAseprite('ase');
              const anim = tags[0];
              const frames = anim ? anim.frames.map((f) => f.textureFrame) : [];
              const durations = anim ? anim.frames.map((f) => f.duration) : [];
              const named = this.anims.generateFrameNames('hash', { prefix: 'fire_loop_', end: 15, zeroPad: 2 });
              resolve({
                hash: rects('hash'),
                array: rects('array'),
                ase: rects('ase'),
                tag: anim ? anim.key : null,
                frames,
                durations,
                named: named.length,
              });
            }
          }
          new Phaser.Game({ type: Phaser.CANVAS, width: 64, height: 64, scene: Load, banner: false, audio: { noAudio: true } });
        }),
    );
    const v = phaser === 'phaser3' ? 'Phaser 3.90' : 'Phaser 4.2';
    const byName = (list) => names.map((n) => list.find((f) => f.name === n)).filter(Boolean);
    check(`${v} reads every frame of the hash form`, sameRects(byName(got.hash)), `${got.hash.length} frames`);
    check(`${v} reads every frame of the array form`, sameRects(byName(got.array)), `${got.array.length} frames`);
    check(`${v} generateFrameNames finds the 16 frames by name`, got.named === 16, `${got.named}`);
    const ase = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15'];
    check(`${v} createFromAseprite builds the tag's animation`, got.tag === 'fire_loop', `${got.tag}`);
    check(`${v} createFromAseprite plays 16 distinct cells in order`,
      got.frames.length === 16 && got.frames.every((f, i) => String(f) === ase[i]), got.frames.join(','));
    const aseRects = ase.map((n) => got.ase.find((f) => f.name === n)).filter(Boolean);
    check(`${v} places every Aseprite frame on its cell`, sameRects(aseRects));
    const total = got.durations.reduce((a, b) => a + b, 0);
    check(`${v} takes whole-millisecond durations that add up to the 1 s loop`,
      total === 1000 && got.durations.every((d) => Number.isInteger(d)), `${got.durations.join(',')}`);
    await tab.close();
  }
} finally {
  await browser.close();
  server.close();
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(failed ? `${failed} checks failed` : 'all checks passed');
process.exit(failed ? 1 : 0);
