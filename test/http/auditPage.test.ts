/**
 * The audit page at /audit/: how its files are served (types, headers, GET and HEAD only, nothing but its own files:
 * no `..`, encoded dots or NUL reach anything else, and /audit/v1/… stays the API's), then the page in headless
 * Chromium (Debian's, driven by playwright-core): sign-in refusals and sign-in, the timeline of events made through
 * the API, filters, a live event arriving, an item's history with its word diff, and the item as of a moment. Each
 * view's screenshot is decoded (sharp) and checked for what should be drawn where, besides the DOM. Skipped, with a
 * notice, only when /usr/bin/chromium is missing.
 */
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import type { Page } from 'playwright-core';
import { startTestSite } from '../support/testSite';
import { openSse } from '../support/sse';
import type { TestSite, TestUser } from '../support/testSite';

const CHROMIUM = '/usr/bin/chromium';
const FILES = ['audit.css', 'audit.mjs', 'api.mjs', 'dom.mjs', 'diff.mjs', 'views.mjs'];

/** A request sent with its path exactly as given (fetch would resolve `..` first). */
function rawGet(
  base: string,
  path: string,
): Promise<{ status: number; body: string; headers: http.IncomingHttpHeaders }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const request = http.request({ host: hostname, port, path, method: 'GET', agent: false }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks).toString('utf8'),
          headers: response.headers,
        }),
      );
    });
    request.on('error', reject);
    request.end();
  });
}

/** A request whose path holds a raw NUL byte, written by hand (node's client refuses such a path). */
function rawNul(base: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = new net.Socket();
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.connect(Number(port), hostname, () =>
      socket.end('GET /audit/audit.mjs\u0000.txt HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------------

const serving = suite('audit page: serving its files');

serving('the page and its files: types, a strict CSP, ETag revalidation, HEAD without a body', async () => {
  const site = await startTestSite();
  try {
    const page = await fetch(`${site.url}/audit/`);
    assert.is(page.status, 200);
    assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /connect-src 'self'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.not.match(csp, /unsafe-inline|unsafe-eval/);
    assert.is(page.headers.get('x-content-type-options'), 'nosniff');
    assert.is(page.headers.get('x-frame-options'), 'DENY');
    assert.is(page.headers.get('access-control-allow-origin'), null, 'the page is not an API answer');
    const html = await page.text();
    assert.match(html, /<script type="module" src="audit.mjs"><\/script>/);
    assert.not.match(
      html,
      /<script>|<style|\sstyle=|\son\w+=/,
      'no inline script, style or handler (the CSP would block them)',
    );

    for (const file of FILES) {
      const answer = await fetch(`${site.url}/audit/${file}`);
      assert.is(answer.status, 200, file);
      assert.is(
        answer.headers.get('content-type'),
        file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8',
        file,
      );
      const text = await answer.text();
      assert.is(text, fs.readFileSync(new URL(`../../src/auditPage/static/${file}`, import.meta.url), 'utf8'));
      if (file.endsWith('.mjs'))
        assert.not.match(
          text,
          /innerHTML|outerHTML|insertAdjacentHTML|document\.write/,
          `${file} builds no markup from strings`,
        );
    }

    const etag = page.headers.get('etag')!;
    assert.match(etag, /^"[\w-]+"$/);
    const again = await fetch(`${site.url}/audit/`, { headers: { 'if-none-match': etag } });
    assert.is(again.status, 304);
    assert.is(await again.text(), '');

    const head = await fetch(`${site.url}/audit/audit.mjs`, { method: 'HEAD' });
    assert.is(head.status, 200);
    assert.is(
      head.headers.get('content-length'),
      String(fs.statSync(new URL('../../src/auditPage/static/audit.mjs', import.meta.url)).size),
    );
    assert.is(await head.text(), '');

    const bare = await fetch(`${site.url}/audit`, { redirect: 'manual' });
    assert.is(bare.status, 301);
    assert.is(bare.headers.get('location'), '/audit/');
  } finally {
    await site.close();
  }
});

serving('other methods are 405 with Allow; writes with credentials change nothing', async () => {
  const site = await startTestSite();
  try {
    const admin = await site.createUser('admin', 'administrator');
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      const answer = await fetch(`${site.url}/audit/`, {
        method,
        headers: { authorization: admin.auth, 'content-type': 'application/json' },
        body: method === 'OPTIONS' ? undefined : '{}',
      });
      assert.is(answer.status, 405, method);
      assert.is(answer.headers.get('allow'), 'GET, HEAD');
    }
    // `?_method=` overrides only reach the API.
    const overridden = await fetch(`${site.url}/audit/?_method=DELETE`);
    assert.is(overridden.status, 200);
  } finally {
    await site.close();
  }
});

serving(
  "nothing but the page's own files: unknown names, dots, encoded dots and slashes, NUL, case are 404",
  async () => {
    const site = await startTestSite();
    try {
      const paths = [
        '/audit/nope.js',
        '/audit/index.html',
        '/audit/static/audit.mjs',
        '/audit/AUDIT.MJS',
        '/audit/audit.mjs/',
        '/audit/../package.json',
        '/audit/../../etc/passwd',
        '/audit/./audit.mjs',
        '/audit//audit.mjs',
        '/audit/%2e%2e/package.json',
        '/audit/%2E%2E/%2E%2E/package.json',
        '/audit/%2e%2e%2fpackage.json',
        '/audit/..%2f..%2fpackage.json',
        '/audit/..%5c..%5cpackage.json',
        '/audit/audit.mjs%00',
        '/audit/audit.mjs%00.txt',
        '/audit/%00',
        '/audit/handler.ts',
        '/audit/v2/events',
      ];
      for (const path of paths) {
        const answer = await rawGet(site.url, path);
        assert.is(answer.status, 404, path);
        assert.is(answer.body, 'Not found.', path);
        assert.match(String(answer.headers['content-security-policy']), /script-src 'self'/, path);
      }
      // A raw NUL never gets as far as the page: the HTTP parser refuses the request line.
      const nul = await rawNul(site.url);
      assert.match(nul, /^HTTP\/1\.1 400/);
      assert.not.match(nul, /import /);
    } finally {
      await site.close();
    }
  },
);

serving('/audit/v1/… stays the API: its routes, errors and namespace index', async () => {
  const site = await startTestSite();
  try {
    const admin = await site.createUser('admin', 'administrator');
    const anonymous = await site.request('GET', '/audit/v1/events');
    assert.is(anonymous.status, 401);
    assert.is(anonymous.body.code, 'rest_forbidden');
    const events = await site.request('GET', '/audit/v1/events?per_page=1', { as: admin });
    assert.is(events.status, 200);
    assert.is(events.body.length, 1);
    const index = await site.request('GET', '/audit/v1');
    assert.is(index.status, 200);
    assert.is(index.body.namespace, 'audit/v1');
    const unknown = await site.request('GET', '/audit/v1/nope');
    assert.is(unknown.status, 404);
    assert.is(unknown.body.code, 'rest_no_route');
    const wordpress = await site.request('GET', '/wp-json/audit/v1/events', { as: admin });
    assert.is(wordpress.status, 200);
  } finally {
    await site.close();
  }
});

serving('under a site URL with a path: the page is at /blog/audit/, and /audit/ is nothing', async () => {
  const site = await startTestSite({ siteUrl: 'http://example.test/blog' });
  try {
    const page = await fetch(`${site.url}/blog/audit/`);
    assert.is(page.status, 200);
    assert.match(await page.text(), /src="audit.mjs"/);
    assert.is((await fetch(`${site.url}/blog/audit/dom.mjs`)).status, 200);
    assert.is((await fetch(`${site.url}/blog/audit`, { redirect: 'manual' })).headers.get('location'), '/blog/audit/');
    assert.is((await rawGet(site.url, '/blog/audit/%2e%2e/%2e%2e/package.json')).status, 404);
    const elsewhere = await fetch(`${site.url}/audit/`);
    assert.is(elsewhere.status, 404);
    assert.match(
      elsewhere.headers.get('content-type') ?? '',
      /application\/json/,
      "not the page: the API's answer for no route",
    );
    const api = await fetch(`${site.url}/blog/audit/v1/events`);
    assert.is(api.status, 401);
  } finally {
    await site.close();
  }
});

// ---------------------------------------------------------------------------------------------------------------

/** A screenshot as pixels: the colour at a point, and how many pixels of a box pass a test. */
async function pixelsOf(png: Buffer) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const pixel = (x: number, y: number): [number, number, number] => {
    const at = (Math.floor(y) * info.width + Math.floor(x)) * info.channels;
    return [data[at]!, data[at + 1]!, data[at + 2]!];
  };
  const count = (
    box: { x: number; y: number; width: number; height: number },
    test: (rgb: [number, number, number]) => boolean,
  ) => {
    let n = 0;
    for (let y = Math.ceil(box.y); y < Math.min(info.height, box.y + box.height); y++) {
      for (let x = Math.ceil(box.x); x < Math.min(info.width, box.x + box.width); x++) if (test(pixel(x, y))) n++;
    }
    return n;
  };
  /** Distinct colours in the whole image (a blank page has one). */
  const colours = () => {
    const seen = new Set<number>();
    for (let at = 0; at < data.length; at += info.channels)
      seen.add((data[at]! << 16) | (data[at + 1]! << 8) | data[at + 2]!);
    return seen.size;
  };
  return { width: info.width, height: info.height, pixel, count, colours };
}

const near =
  (hex: number, tolerance = 12) =>
  ([r, g, b]: [number, number, number]) =>
    Math.abs(r - (hex >> 16)) + Math.abs(g - ((hex >> 8) & 0xff)) + Math.abs(b - (hex & 0xff)) < tolerance;

/** How much of an element's box is painted in a colour (0 to 1). */
async function shareOf(page: Page, selector: string, hex: number): Promise<number> {
  const element = page.locator(selector).first();
  await element.scrollIntoViewIfNeeded();
  const box = (await element.boundingBox())!;
  assert.ok(box, `${selector} is on screen`);
  const image = await pixelsOf(await page.screenshot());
  return image.count(box, near(hex)) / (Math.floor(box.width) * Math.floor(box.height));
}

/** A screenshot that is not blank: many colours, the page's white and the header bar's dark ink. */
async function assertDrawn(page: Page, name: string): Promise<void> {
  await page.evaluate(() => (globalThis as any).scrollTo(0, 0));
  const png = await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/palimpsest-audit-${name}.png` });
  const image = await pixelsOf(png);
  assert.is(image.width, 1100);
  assert.ok(image.colours() > 50, `${name}: the screenshot is not blank`);
  assert.equal(image.pixel(1090, 400), [255, 255, 255], `${name}: the page's background`);
  const bar = (await page.locator('header.bar').boundingBox())!;
  assert.ok(image.count(bar, near(0x1d2327)) > bar.width * bar.height * 0.6, `${name}: the header bar`);
  const heading = (await page.locator('main h2').first().boundingBox())!;
  assert.ok(image.count(heading, ([r, g, b]) => r + g + b < 150) > 100, `${name}: the view's heading is drawn`);
}

/** Waits until the view the URL's fragment names is shown (after a click that navigates). */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () =>
      (globalThis as any).document.querySelector('.view[data-ready]')?.getAttribute('data-hash') ===
      (globalThis as any).location.hash,
  );
}

const browser = suite('audit page in headless Chromium');
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium)
  console.log(
    `NOTICE: ${CHROMIUM} is missing: the headless-browser test of the audit page is skipped (apt-get install -y chromium).`,
  );

const MINUTE = 60_000;
const START = Date.parse('2024-05-01T12:00:00Z');

/** Posts and a page written through the API, a few minutes apart; the post's id and the page's. */
async function writeThroughApi(site: TestSite, admin: TestUser) {
  site.clock.set(START);
  const post = await site.request('POST', '/core/v2/posts', {
    as: admin,
    body: { title: 'Field notes', content: 'The quick brown fox', status: 'draft' },
  });
  assert.is(post.status, 201);
  site.clock.set(START + 5 * MINUTE);
  const updated = await site.request('POST', `/core/v2/posts/${post.body.id}`, {
    as: admin,
    body: { content: 'The quick red fox jumps', status: 'publish' },
  });
  assert.is(updated.status, 200);
  site.clock.set(START + 10 * MINUTE);
  const page = await site.request('POST', '/core/v2/pages', {
    as: admin,
    body: { title: '<img src=x onerror=alert(1)> & <b>bold</b>', content: 'About', status: 'publish' },
  });
  assert.is(page.status, 201);
  return { postId: post.body.id as number, pageId: page.body.id as number };
}

const launch = () =>
  chromium.launch({
    executablePath: CHROMIUM,
    timeout: 30_000,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });

/** A page that records script errors, console errors and dialogs (none is expected). */
async function watchedPage(instance: Awaited<ReturnType<typeof launch>>): Promise<{ page: Page; problems: string[] }> {
  const page = await instance.newPage({ viewport: { width: 1100, height: 900 } });
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text()))
      problems.push(`console: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    problems.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { page, problems };
}

async function signIn(page: Page, user: TestUser): Promise<void> {
  await page.getByLabel('Username').fill(user.login);
  await page.getByLabel('Application password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

(haveChromium ? browser : browser.skip)(
  "sign in, the timeline, filters, a live event, an item's history with its diff, the item as of a moment",
  async () => {
    const site = await startTestSite();
    const instance = await launch();
    // A bound on the whole walk: past it the browser is closed, and whatever step waits fails at once.
    const bound = setTimeout(() => void instance.close(), 3 * MINUTE);
    try {
      const admin = await site.createUser('admin', 'administrator');
      const writer = await site.createUser('writer', 'author');
      const { postId, pageId } = await writeThroughApi(site, admin);

      const { page, problems } = await watchedPage(instance);

      // Sign-in: a wrong password, then a user who is no administrator, each with its message; then the administrator.
      await page.goto(`${site.url}/audit/`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await assertDrawn(page, 'sign-in');
      // Nothing but the title in the bar before signing in: its right half is the bar's colour alone.
      assert.is(await page.getByRole('button', { name: 'Sign out' }).isVisible(), false);
      const signInBar = (await page.locator('header.bar').boundingBox())!;
      const half = { x: signInBar.width / 2, y: signInBar.y, width: signInBar.width / 2, height: signInBar.height };
      const bare = await pixelsOf(await page.screenshot());
      assert.is(
        bare.count(half, (rgb) => !near(0x1d2327)(rgb)),
        0,
        'no navigation drawn',
      );
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Application password').fill('wrong password here');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('alert')
        .getByText(/not correct/)
        .waitFor();
      assert.ok((await shareOf(page, '#sign-in-error', 0xfcf0f1)) > 0.5, 'the refusal is drawn in its alert colours');
      await page.getByLabel('Username').fill('writer');
      await page.getByLabel('Application password').fill(writer.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page
        .getByRole('alert')
        .getByText(/administrators only/)
        .waitFor();
      assert.is(
        await page.evaluate(() => (globalThis as any).sessionStorage.length),
        0,
        'nothing is kept for a refused sign-in',
      );
      await page.getByLabel('Username').fill('admin');
      await page.getByLabel('Application password').fill(admin.password);
      await page.getByRole('button', { name: 'Sign in' }).click();

      // The timeline: who, what, when, which item, newest first.
      await page.getByRole('heading', { name: 'Timeline' }).waitFor();
      await page.locator('.feed[data-state="live"]').waitFor();
      assert.is(
        await page.evaluate(() => (globalThis as any).localStorage.length),
        0,
        'the password is kept in sessionStorage only',
      );
      assert.is(await page.evaluate(() => (globalThis as any).sessionStorage.length), 1);
      const rows = page.locator('table.timeline tbody tr');
      // (Signing in used the password: its ApplicationPasswordUsed event may be first.)
      const firstRow = rows.locator('xpath=self::*[@data-type="PostCreated"]').first();
      assert.is(await firstRow.locator('.which').textContent(), `content-${pageId} page`);
      assert.is(await firstRow.locator('.who').textContent(), 'admin (admin)');
      assert.is(await firstRow.locator('time').textContent(), '2024-05-01 12:10:00 UTC');
      const types = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')));
      assert.ok(
        types.includes('PostUpdated') && types.includes('PostRevised') && types.includes('UserRegistered'),
        types.join(' '),
      );
      // The page's title is shown as text: no element came of it, no script ran (checked by `problems` too).
      await firstRow.locator('details summary').click();
      assert.match((await firstRow.locator('pre').textContent())!, /<img src=x onerror=alert\(1\)> & <b>bold<\/b>/);
      assert.is(await page.locator('main img, main b').count(), 0);
      await firstRow.locator('details summary').click();
      await assertDrawn(page, 'timeline');
      assert.ok(
        (await pixelsOf(await page.screenshot())).count(half, ([r, g, b]) => r > 240 && g > 240 && b > 240) > 100,
        'signed in, the bar has its navigation',
      );
      assert.ok(
        (await shareOf(page, 'table.timeline tbody tr[data-type="PostCreated"] .badge', 0x00a32a)) > 0.4,
        'a creation has a green badge',
      );
      assert.ok(
        (await shareOf(page, 'table.timeline tbody tr[data-type="PostUpdated"] .badge', 0x2271b1)) > 0.4,
        'an update has a blue badge',
      );

      // Filters: by type, by item and user together, by date range; each is the API's answer.
      await page.getByLabel('Event type').fill('PostUpdated');
      await page.getByRole('button', { name: 'Filter' }).click();
      await settled(page);
      await page.waitForFunction(() =>
        [...(globalThis as any).document.querySelectorAll('table.timeline tbody tr')].every(
          (tr) => tr.getAttribute('data-type') === 'PostUpdated',
        ),
      );
      assert.is(await rows.count(), 1);
      await page.getByLabel('Event type').fill('PostCreated, PostUpdated');
      await page.getByRole('button', { name: 'Filter' }).click();
      await settled(page);
      assert.equal(
        new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type')))),
        new Set(['PostCreated', 'PostUpdated']),
      );
      assert.is(await rows.count(), 3);
      await page.getByLabel('Event type').fill('');
      await page.getByLabel('Item (stream)').fill(`content-${postId}`);
      await page.getByLabel('Who').selectOption({ label: 'admin (admin)' });
      await page.getByRole('button', { name: 'Filter' }).click();
      await settled(page);
      await page.waitForFunction(
        (stream) =>
          [...(globalThis as any).document.querySelectorAll('table.timeline tbody tr td.which a')].every(
            (a) => a.textContent === stream,
          ),
        `content-${postId}`,
      );
      assert.equal(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type'))), [
        'PostRevised',
        'PostUpdated',
        'PostCreated',
      ]);
      await page.getByRole('link', { name: 'Clear' }).click();
      await settled(page);
      await page.getByLabel('From (UTC)').fill('2024-05-01T12:03:00');
      await page.getByLabel('To (UTC)').fill('2024-05-01T12:07:00');
      await page.getByRole('button', { name: 'Filter' }).click();
      await settled(page);
      const between = (
        await site.request('GET', '/audit/v1/events?after=2024-05-01T12:03:00Z&before=2024-05-01T12:07:00Z', {
          as: admin,
        })
      ).body as { position: number }[];
      assert.equal(
        await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-position')))),
        between.map((entry) => entry.position),
      );
      assert.equal(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-type'))), [
        'PostRevised',
        'PostUpdated',
        'NameClaimed',
      ]);
      assert.equal(
        new Set(await rows.evaluateAll((trs) => trs.map((tr) => tr.querySelector('time')!.textContent))),
        new Set(['2024-05-01 12:05:00 UTC']),
      );
      await page.getByLabel('From (UTC)').fill('2024-05-01T12:11:00');
      await page.getByLabel('To (UTC)').fill('');
      await page.getByRole('button', { name: 'Filter' }).click();
      await settled(page);
      await page.getByText('No events match these filters.').waitFor();

      // Paging: one event per step through the cursor links, newest first, none twice.
      await page.getByRole('link', { name: 'Clear' }).click();
      await settled(page);
      await page.locator('.feed[data-state="live"]').waitFor();
      const total = await rows.count();
      assert.ok(total >= 8, `${total} events`);
      const everything = (await site.request('GET', '/audit/v1/events?per_page=100', { as: admin })).body as {
        position: number;
      }[];
      assert.equal(
        await rows.evaluateAll((trs) => trs.map((tr) => Number(tr.getAttribute('data-position')))),
        everything.slice(0, 20).map((entry) => entry.position),
      );

      // A live event: written through the API while the page shows the timeline, it appears at the top, highlighted.
      site.clock.set(START + 20 * MINUTE);
      const live = await site.request('POST', `/core/v2/posts/${postId}`, {
        as: admin,
        body: { title: 'Field notes, revised' },
      });
      assert.is(live.status, 200);
      await page.locator('table.timeline tbody tr.fresh[data-type="PostUpdated"]').waitFor();
      await page.locator('table.timeline tbody tr.fresh[data-type="PostRevised"]').waitFor();
      const fresh = await page
        .locator('table.timeline tbody tr.fresh')
        .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-type'), tr.querySelector('time')!.textContent]));
      assert.equal(fresh.slice(0, 2), [
        ['PostRevised', '2024-05-01 12:20:00 UTC'],
        ['PostUpdated', '2024-05-01 12:20:00 UTC'],
      ]);
      assert.equal(
        await rows.evaluateAll((trs) => trs.slice(0, 2).map((tr) => tr.getAttribute('data-type'))),
        ['PostRevised', 'PostUpdated'],
        'at the top',
      );
      assert.is(await rows.count(), total + fresh.length, 'nothing shown twice');
      await assertDrawn(page, 'live');
      assert.ok(
        (await shareOf(page, 'table.timeline tbody tr.fresh td.who', 0xffe58f)) > 0.6,
        'a live event is highlighted',
      );
      assert.ok(
        (await shareOf(page, 'table.timeline tbody tr:not(.fresh) td.who', 0xffe58f)) < 0.05,
        'older ones are not',
      );

      // The item's history: each change with a word diff of its fields.
      await page.locator(`table.timeline tbody tr[data-type="PostCreated"] a[href="#/item/content-${postId}"]`).click();
      await page.getByRole('heading', { name: /History of post/ }).waitFor();
      assert.match((await page.locator('main h2').textContent())!, /Field notes, revised/);
      const changes = page.locator('article.change');
      assert.equal(await changes.evaluateAll((all) => all.map((a) => a.getAttribute('data-type'))), [
        'PostCreated',
        'PostUpdated',
        'PostRevised',
        'PostUpdated',
        'PostRevised',
      ]);
      const contentChange = changes.nth(1).locator('tr[data-field="content"] .text-diff');
      assert.is(
        await contentChange
          .locator('del')
          .allTextContents()
          .then((t) => t.join('|')),
        'brown',
      );
      assert.is(
        await contentChange
          .locator('ins')
          .allTextContents()
          .then((t) => t.join('|')),
        'red| jumps',
      );
      assert.is(await contentChange.textContent(), 'The quick brownred fox jumps');
      assert.is(await changes.nth(1).locator('tr[data-field="status"] del').textContent(), 'draft');
      assert.is(await changes.nth(1).locator('tr[data-field="status"] ins').textContent(), 'publish');
      await changes.nth(1).scrollIntoViewIfNeeded();
      await assertDrawn(page, 'history');
      assert.ok(
        (await shareOf(page, 'article.change:nth-of-type(2) tr[data-field="content"] ins', 0xa6ecb4)) > 0.4,
        'added words are green',
      );
      assert.ok(
        (await shareOf(page, 'article.change:nth-of-type(2) tr[data-field="content"] del', 0xffc2c2)) > 0.3,
        'removed words are red',
      );

      // As of the first change: its title and text, the fields changed since marked.
      await changes.first().getByRole('link', { name: 'State after this change' }).click();
      await page.locator('.as-of-banner').waitFor();
      assert.is(await page.locator('.as-of-banner').textContent(), 'As of 2024-05-01 12:00:00 UTC');
      const state = (field: string) => page.locator(`table.state tr[data-field="${field}"]`);
      assert.equal(await state('title').locator('td').allTextContents(), ['Field notes', 'Field notes, revised']);
      assert.equal(await state('content').locator('td').allTextContents(), [
        'The quick brown fox',
        'The quick red fox jumps',
      ]);
      assert.equal(await state('status').locator('td').allTextContents(), ['draft', 'publish']);
      assert.is(await state('title').getAttribute('class'), 'changed');
      assert.is(await state('author').getAttribute('class'), null, 'unchanged fields are not marked');
      await assertDrawn(page, 'as-of');
      assert.ok((await shareOf(page, '.as-of-banner', 0xf0b849)) > 0.6, 'the moment is shown on its banner');
      assert.ok(
        (await shareOf(page, 'table.state tr[data-field="title"] td', 0xfde8b0)) > 0.5,
        'a changed field is highlighted',
      );
      assert.ok((await shareOf(page, 'table.state tr[data-field="author"] td', 0xfde8b0)) < 0.05);

      // Another moment, typed in: between the creation and the update the text is still the first one; before the
      // creation the item did not exist.
      await page.getByLabel('Show the item as it was at (UTC)').fill('2024-05-01T12:04:59');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.locator('.as-of-banner', { hasText: '12:04:59' }).waitFor();
      assert.equal(await state('content').locator('td').allTextContents(), [
        'The quick brown fox',
        'The quick red fox jumps',
      ]);
      await page.getByLabel('Show the item as it was at (UTC)').fill('2024-05-01T11:59:59');
      await page.getByRole('button', { name: 'Show' }).click();
      await page.getByRole('alert').getByText('The item did not exist at 2024-05-01 11:59:59 UTC.').waitFor();

      // Signing out forgets the password.
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.is(await page.evaluate(() => (globalThis as any).sessionStorage.length), 0);
      assert.equal(problems, []);
    } finally {
      clearTimeout(bound);
      await instance.close();
      await site.close();
    }
  },
);

(haveChromium ? browser : browser.skip)(
  'faults: a refused live feed is retried until it is let in; a deleted item, odd fragments, a revoked password',
  async () => {
    // One feed per user: the test holds the administrator's, so the page's is refused (429) until the test lets go.
    const site = await startTestSite({ auditStreams: { perUser: 1 } });
    const instance = await launch();
    const bound = setTimeout(() => void instance.close(), 3 * MINUTE);
    try {
      const admin = await site.createUser('admin', 'administrator');
      const auditor = await site.createUser('auditor', 'administrator');
      const held = await openSse(`${site.url}/audit/v1/stream`, { authorization: auditor.auth });
      assert.is(held.status, 200);
      const { page, problems } = await watchedPage(instance);
      await page.goto(`${site.url}/audit/`);
      await signIn(page, auditor);
      await page.locator('.feed[data-state="reconnecting"]', { hasText: /Reconnecting/ }).waitFor();
      assert.match((await page.locator('.feed').textContent())!, /too many|streams|feeds/i);
      held.close();
      await page.locator('.feed[data-state="live"]').waitFor();
      // Each new view of the timeline closes the feed of the one before: with one feed allowed, one left open would
      // keep every later one out.
      for (const type of ['PostCreated', 'PostUpdated', '']) {
        await page.getByLabel('Event type').fill(type);
        await page.getByRole('button', { name: 'Filter' }).click();
        await settled(page);
        await page.locator('.feed[data-state="live"]').waitFor();
      }
      const post = await site.request('POST', '/core/v2/posts', {
        as: admin,
        body: { title: 'Short-lived', status: 'publish' },
      });
      assert.is(post.status, 201);
      await page
        .locator(`table.timeline tbody tr.fresh[data-type="PostCreated"] a[href="#/item/content-${post.body.id}"]`)
        .waitFor();

      // A deleted item has no history: the page says so, and where its events are.
      assert.is((await site.request('DELETE', `/core/v2/posts/${post.body.id}?force=true`, { as: admin })).status, 200);
      await page.locator('table.timeline tbody tr.fresh[data-type="PostDeleted"]').waitFor();
      await page
        .locator(`table.timeline tbody tr.fresh[data-type="PostCreated"] a[href="#/item/content-${post.body.id}"]`)
        .click();
      await page.getByRole('alert').getByText(`There is no post, page or reusable block ${post.body.id} now`).waitFor();

      // Fragments no link makes: a stream that is no item, a date that is none, broken percent-encoding.
      await page.goto(`${site.url}/audit/#/item/user-1`);
      await page.getByRole('alert').getByText('user-1 is not a post, page or reusable block').waitFor();
      await page.goto(`${site.url}/audit/#/item/content-${post.body.id}/as-of/yesterday`);
      await page
        .getByRole('alert')
        .getByText(/There is no post, page or reusable block/)
        .waitFor();
      await page.goto(`${site.url}/audit/#/item/%E0%A4%A`);
      await page.getByRole('alert').getByText('This address names no view of the audit log.').waitFor();
      await page.goto(`${site.url}/audit/#/?user=abc&after=never`);
      await page
        .getByRole('alert')
        .getByText(/Invalid parameter/)
        .waitFor();

      // The password revoked while the page is open: the next view leads back to the sign-in form, which says why.
      const revoked = await site.request('DELETE', `/core/v2/users/${auditor.id}/application-passwords`, { as: admin });
      assert.is(revoked.status, 200);
      await page.goto(`${site.url}/audit/#/`);
      await page
        .getByRole('alert')
        .getByText(/no longer accepted/)
        .waitFor();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      assert.is(await page.evaluate(() => (globalThis as any).sessionStorage.length), 0);
      assert.equal(problems, []);
    } finally {
      clearTimeout(bound);
      await instance.close();
      await site.close();
    }
  },
);

serving.run();
browser.run();
