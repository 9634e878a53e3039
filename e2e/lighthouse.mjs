// Lighthouse mobile performance of the built app, measured with Debian's
// Chromium: starts a stack with the demo data (or uses --url), runs
// Lighthouse's default mobile configuration (Moto G Power-class device,
// simulated slow 4G and 4x CPU slowdown) a few times per page, and prints
// the median score with its LCP, TBT, FCP, CLS and Speed Index.
//
//   npm run lighthouse                       # /home and /properties, 5 runs each
//   npm run lighthouse -- --runs 5 --paths /home,/pricing
//   npm run lighthouse -- --url http://127.0.0.1:54321   # a stack from `make run`
//   npm run lighthouse -- --min-score 90     # exit 1 when a median is below
//
// Reports (JSON per run, and a summary) go to e2e/.lighthouse/.
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';

import { CHROMIUM, CHROMIUM_FLAGS } from './lib/browser.mjs';
import { startDemoStack } from './lib/stack.mjs';

const { values: opts } = parseArgs({
  options: {
    url: { type: 'string' },
    paths: { type: 'string', default: '/home,/properties' },
    runs: { type: 'string', default: '5' },
    'min-score': { type: 'string' },
  },
});
const runs = Math.max(1, Number.parseInt(opts.runs, 10) || 5);
const paths = opts.paths.split(',').map((p) => p.trim()).filter(Boolean);
const outDir = join(dirname(fileURLToPath(import.meta.url)), '.lighthouse');
mkdirSync(outDir, { recursive: true });

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

const stack = opts.url ? null : await startDemoStack();
const base = (opts.url ?? stack.url).replace(/\/$/, '');
const chrome = await chromeLauncher.launch({
  chromePath: CHROMIUM,
  chromeFlags: [...CHROMIUM_FLAGS, '--headless=new'],
  logLevel: 'silent',
});

const summary = { measuredAt: new Date().toISOString(), lighthouse: null, chromium: null, base, runs, loadBefore: loadavg()[0], pages: {} };
let failed = false;
try {
  for (const path of paths) {
    const samples = [];
    for (let i = 1; i <= runs; i++) {
      const result = await lighthouse(`${base}${path}`, {
        port: chrome.port,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance'],
      });
      const { lhr } = result;
      summary.lighthouse ??= lhr.lighthouseVersion;
      summary.chromium ??= lhr.environment?.hostUserAgent?.match(/Chrome\/[\d.]+/)?.[0] ?? null;
      if (lhr.runtimeError) throw new Error(`${path}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
      const audit = (id) => lhr.audits[id]?.numericValue ?? Number.NaN;
      const sample = {
        score: Math.round((lhr.categories.performance.score ?? 0) * 100),
        lcpMs: audit('largest-contentful-paint'),
        tbtMs: audit('total-blocking-time'),
        fcpMs: audit('first-contentful-paint'),
        cls: audit('cumulative-layout-shift'),
        speedIndexMs: audit('speed-index'),
      };
      samples.push(sample);
      const name = path.replace(/\W+/g, '_').replace(/^_|_$/g, '') || 'root';
      writeFileSync(join(outDir, `${name}-run${i}.json`), result.report);
      console.log(
        `${path} run ${i}/${runs}: score ${sample.score}, LCP ${(sample.lcpMs / 1000).toFixed(2)} s, ` +
          `TBT ${Math.round(sample.tbtMs)} ms, FCP ${(sample.fcpMs / 1000).toFixed(2)} s, CLS ${sample.cls.toFixed(3)}`,
      );
    }
    const med = Object.fromEntries(Object.keys(samples[0]).map((k) => [k, median(samples.map((s) => s[k]))]));
    summary.pages[path] = { median: med, samples };
  }
} finally {
  chrome.kill();
  await stack?.stop();
}

summary.loadAfter = loadavg()[0];
writeFileSync(join(outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
console.log(`\nLighthouse ${summary.lighthouse} mobile (default config), median of ${runs} runs, ${summary.chromium} (${CHROMIUM}); ` +
  `1-min load average ${summary.loadBefore.toFixed(1)} before, ${summary.loadAfter.toFixed(1)} after`);
console.log('| page | performance (range) | LCP | TBT | FCP | CLS | Speed Index |');
console.log('|---|---|---|---|---|---|---|');
for (const [path, { median: m, samples }] of Object.entries(summary.pages)) {
  const scores = samples.map((x) => x.score);
  console.log(
    `| \`${path}\` | ${m.score} (${Math.min(...scores)}–${Math.max(...scores)}) | ${(m.lcpMs / 1000).toFixed(1)} s | ${Math.round(m.tbtMs)} ms | ${(m.fcpMs / 1000).toFixed(1)} s | ` +
      `${m.cls.toFixed(3)} | ${(m.speedIndexMs / 1000).toFixed(1)} s |`,
  );
  if (opts['min-score'] && m.score < Number(opts['min-score'])) {
    console.error(`${path}: median score ${m.score} is below ${opts['min-score']}`);
    failed = true;
  }
}
process.exit(failed ? 1 : 0);
