// Opens a `spritz check --report` folder from file:// in headless Chromium
// (no server) and checks what a reader sees: one section per failure, every
// image loaded, the tabs switching views, the slider clipping the actual
// image, passing checks collapsed, stale goldens listed.
//
//   node tests/browser/report.mjs REPORT_DIR FAILURES STALE
import path from 'node:path';
import puppeteer from 'puppeteer-core';

const [dir, failures, stale] = process.argv.slice(2);
const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox'],
});
let failed = 0;
const check = (what, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? ': ' + detail : ''}`);
  if (!ok) failed++;
};
try {
  const page = await browser.newPage();
  await page.goto('file://' + path.resolve(dir, 'index.html'), { waitUntil: 'load' });
  const got = await page.evaluate(() => ({
    sections: document.querySelectorAll('section.fail').length,
    broken: [...document.images].filter((i) => !(i.complete && i.naturalWidth > 0)).map((i) => i.src),
    images: document.images.length,
    stale: document.querySelectorAll('#stale li').length,
    passedOpen: document.querySelector('#passed').open,
    visible: [...document.querySelectorAll('[data-check="0"] .view')].filter((v) => !v.hidden).map((v) => v.dataset.view),
  }));
  check('one section per failure', got.sections === Number(failures), `${got.sections}`);
  check('every image loads from file://', got.broken.length === 0 && got.images > 0,
    `${got.images} images, broken: ${got.broken.join(' ')}`);
  check('stale goldens are listed', got.stale === Number(stale), `${got.stale}`);
  check('passing checks are collapsed', got.passedOpen === false);
  check('a failure opens on its expected image alone', got.visible.join() === 'expected', got.visible.join());
  await page.click('[data-check="0"] .tabs button[data-view="slider"]');
  const slider = await page.evaluate(() => ({
    visible: [...document.querySelectorAll('[data-check="0"] .view')].filter((v) => getComputedStyle(v).display !== 'none').map((v) => v.dataset.view),
  }));
  check('the slider tab shows the slider alone', slider.visible.join() === 'slider', slider.visible.join());
  await page.evaluate(() => {
    const input = document.querySelector('[data-check="0"] input[type=range]');
    input.value = '20';
    input.dispatchEvent(new Event('input'));
  });
  const clip = await page.evaluate(() => document.querySelector('[data-check="0"] .slider .top').style.clipPath);
  check('the slider clips the actual image', clip === 'inset(0px 80% 0px 0px)' || clip === 'inset(0 80% 0 0)', clip);
  if (process.env.SCREENSHOT) await page.screenshot({ path: process.env.SCREENSHOT, fullPage: true });
} finally {
  await browser.close();
}
console.log(failed ? `${failed} checks failed` : 'all checks passed');
process.exit(failed ? 1 : 0);
