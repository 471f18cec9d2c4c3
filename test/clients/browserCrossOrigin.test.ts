/**
 * A real browser page on another origin using the API with plain `fetch()`: headless Chromium (Debian's, driven by
 * playwright-core) loads a page from a second loopback server on its own port, and the page's script talks to
 * `SITE/wp-json/wp/v2/…` as a front end on another origin would. It lists posts (by fetch, and by JSONP) and reads
 * `X-WP-Total`, `X-WP-TotalPages` and `Link` (readable only when CORS exposes them), creates a post with
 * `Authorization: Basic` (a preflighted request), updates it with `X-HTTP-Method-Override: PUT` sent as POST (the
 * override header must be allowed by the preflight), uploads an image it drew and shows it, deletes both with
 * DELETE, and reads error bodies cross-origin (401 for a wrong password, 404 for a missing post, and the 429 of a
 * throttled sign-in with its `Retry-After`). With CORS_ALLOWED_ORIGINS set, a page on an origin outside it is
 * blocked by the browser, on reads and on writes, and its writes never reach the site. Skipped, with a notice, only
 * when /usr/bin/chromium is missing.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const CHROMIUM = '/usr/bin/chromium';

/**
 * The page's script: each step's outcome as the page saw it. `failed` is the message of a fetch that rejected
 * (what a browser gives a script for a request CORS blocked); otherwise the status, the headers asked for and the
 * JSON body.
 */
const PAGE_SCRIPT = String.raw`
const { site, auth, wrongAuth, guessAuth } = JSON.parse(document.getElementById('config').textContent);
const api = site + '/wp-json/wp/v2';
async function call(name, url, init, headers) {
  try {
    const response = await fetch(url, init);
    const seen = {};
    for (const header of headers || []) seen[header] = response.headers.get(header);
    let body = null;
    try { body = await response.json(); } catch (error) { body = 'unreadable: ' + error.message; }
    return { name, status: response.status, headers: seen, body };
  } catch (error) {
    return { name, failed: String(error && error.message) };
  }
}
async function run() {
  const steps = [];
  const json = (method, data, extra) => ({ method, headers: { Authorization: auth, 'Content-Type': 'application/json', ...extra }, body: JSON.stringify(data) });
  steps.push(await call('list', api + '/posts?per_page=2', {}, ['X-WP-Total', 'X-WP-TotalPages', 'Link', 'Allow', 'X-Content-Type-Options']));
  // JSONP, the way to read across origins that needs no CORS: a script element, which the browser runs only when it
  // is served as JavaScript (the answers say nosniff).
  steps.push(await new Promise((resolve) => {
    const script = document.createElement('script');
    window.gotPosts = (posts) => resolve({ name: 'jsonp', body: posts.map((post) => post.title.rendered) });
    script.onerror = () => resolve({ name: 'jsonp', failed: 'the script did not load' });
    script.src = api + '/posts?per_page=2&_jsonp=gotPosts';
    document.head.append(script);
  }));
  const created = await call('create', api + '/posts', json('POST', { title: 'From the browser', content: 'Written cross-origin', status: 'publish' }));
  steps.push(created);
  const id = created.body && created.body.id;
  steps.push(await call('update', api + '/posts/' + id, json('POST', { title: 'Renamed in the browser' }, { 'X-HTTP-Method-Override': 'PUT' })));
  steps.push(await call('list after create', api + '/posts?per_page=2', {}, ['X-WP-Total', 'X-WP-TotalPages']));
  // An image drawn here, uploaded as a raw body named by Content-Disposition, then shown in the page.
  const canvas = new OffscreenCanvas(32, 24);
  canvas.getContext('2d').fillRect(0, 0, 32, 24);
  const png = await canvas.convertToBlob({ type: 'image/png' });
  const uploaded = await call('upload', api + '/media', { method: 'POST', headers: { Authorization: auth, 'Content-Type': 'image/png', 'Content-Disposition': 'attachment; filename="drawn.png"' }, body: png });
  steps.push(uploaded);
  const source = uploaded.body && uploaded.body.source_url;
  steps.push(await new Promise((resolve) => {
    const image = new Image();
    image.onload = () => resolve({ name: 'shown', body: { width: image.naturalWidth, height: image.naturalHeight } });
    image.onerror = () => resolve({ name: 'shown', failed: 'the image did not load: ' + source });
    image.src = source || 'about:invalid';
    document.body.append(image);
  }));
  steps.push(await call('delete', api + '/posts/' + id + '?force=true', { method: 'DELETE', headers: { Authorization: auth } }));
  steps.push(await call('delete upload', api + '/media/' + (uploaded.body && uploaded.body.id) + '?force=true', { method: 'DELETE', headers: { Authorization: auth } }));
  steps.push(await call('wrong password', api + '/posts', { method: 'POST', headers: { Authorization: wrongAuth, 'Content-Type': 'application/json' }, body: JSON.stringify({ title: 'Not me' }) }));
  steps.push(await call('missing', api + '/posts/987654321', {}));
  // Guessing another account's password until the site throttles it: the page learns how long to wait.
  let guess;
  for (let i = 0; i < 11; i++) guess = await call('throttled', api + '/users/me', { headers: { Authorization: guessAuth } }, ['Retry-After']);
  steps.push(guess);
  return steps;
}
run().then((steps) => { window.outcome = steps; }, (error) => { window.outcome = [{ name: 'script', failed: String(error) }]; });
`;

interface Step {
  name: string;
  failed?: string;
  status?: number;
  headers?: Record<string, string | null>;
  body?: any;
}

interface PageServer {
  origin: string;
  /** From now on `/` is the page with this configuration (site URL and credentials). */
  serve(config: Record<string, string>): void;
  close(): Promise<void>;
}

/** A loopback server on its own port, a different origin from the site's, whose `/` is the page. */
async function pageServer(): Promise<PageServer> {
  let html: string | null = null;
  const server = http.createServer((request, response) => {
    if (request.url === '/' && html !== null)
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(config) {
      html = [
        '<!doctype html><meta charset="utf-8"><title>Front end</title>',
        `<script type="application/json" id="config">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>`,
        `<script>${PAGE_SCRIPT}</script>`,
      ].join('\n');
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Loads the page in a fresh context and waits for its script's outcome; the console lines it logged too. */
async function visit(browser: Browser, origin: string): Promise<{ steps: Step[]; console: string[] }> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const console: string[] = [];
    page.on('console', (message) => console.push(message.text()));
    const shown = await page.goto(`${origin}/`);
    assert.is(shown!.status(), 200);
    await page.waitForFunction(
      () => (globalThis as unknown as { outcome?: unknown }).outcome !== undefined,
      undefined,
      { timeout: 30_000 },
    );
    const steps = (await page.evaluate(() => (globalThis as unknown as { outcome: unknown }).outcome)) as Step[];
    return { steps, console };
  } finally {
    await context.close();
  }
}

const basic = (login: string, password: string) => `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;

const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium)
  console.log(
    `NOTICE: ${CHROMIUM} is missing: the cross-origin browser tests are skipped (apt-get install -y chromium).`,
  );

const browser = suite('a page on another origin, in headless Chromium');
let instance: Browser;

browser.before(async () => {
  if (!haveChromium) return;
  // Playwright gives each launch a fresh, temporary user-data-dir of its own.
  instance = await chromium.launch({
    executablePath: CHROMIUM,
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
});
browser.after(async () => {
  if (!haveChromium) return;
  await instance.close();
});

async function siteWithPosts(corsAllowedOrigins?: readonly string[]): Promise<{ t: TestSite; editor: TestUser }> {
  const t = await startTestSite({ apiDialect: 'wordpress', corsAllowedOrigins });
  const editor = await t.createUser('editor', 'editor');
  await t.createUser('guessed', 'author');
  for (const title of ['One', 'Two', 'Three']) {
    const created = await t.request('POST', '/core/v2/posts', { as: editor, body: { title, status: 'publish' } });
    assert.is(created.status, 201, created.text);
  }
  return { t, editor };
}

/** The full sequence's outcome, as the page saw it and as the site holds it afterwards. */
async function assertFullSequence(steps: Step[], t: TestSite, editor: TestUser): Promise<void> {
  const step = (name: string) => {
    const found = steps.find((s) => s.name === name);
    assert.ok(found, `step ${name} in ${JSON.stringify(steps)}`);
    return found!;
  };
  for (const s of steps) assert.is(s.failed, undefined, `${s.name}: ${s.failed}`);

  const list = step('list');
  assert.is(list.status, 200);
  assert.equal(list.headers, {
    'X-WP-Total': '3',
    'X-WP-TotalPages': '2',
    Link: `<${t.url}/wp-json/wp/v2/posts?per_page=2&page=2>; rel="next"`,
    Allow: 'GET',
    // Sent, but not an exposed header: the browser keeps it from the page.
    'X-Content-Type-Options': null,
  });
  assert.equal(
    list.body.map((post: any) => post.title.rendered),
    ['Three', 'Two'],
  );
  assert.equal(step('jsonp').body, ['Three', 'Two']);

  const created = step('create');
  assert.is(created.status, 201);
  assert.is(created.body.title.raw, 'From the browser');
  assert.is(created.body.author, editor.id);
  const updated = step('update');
  assert.is(updated.status, 200);
  assert.is(updated.body.id, created.body.id);
  assert.is(updated.body.title.raw, 'Renamed in the browser');
  assert.equal(step('list after create').headers, { 'X-WP-Total': '4', 'X-WP-TotalPages': '2' });
  const uploaded = step('upload');
  assert.is(uploaded.status, 201);
  assert.is(uploaded.body.mime_type, 'image/png');
  assert.equal([uploaded.body.media_details.width, uploaded.body.media_details.height], [32, 24]);
  // The page showed the uploaded image from the URL the site gave.
  assert.equal(step('shown').body, { width: 32, height: 24 });
  const deleted = step('delete');
  assert.is(deleted.status, 200);
  assert.is(deleted.body.deleted, true);
  assert.is(deleted.body.previous.title.raw, 'Renamed in the browser');
  assert.is(step('delete upload').status, 200);

  // Errors are readable cross-origin, with WordPress's bodies.
  const refused = step('wrong password');
  assert.is(refused.status, 401);
  assert.is(refused.body.code, 'incorrect_password');
  assert.is(refused.body.data.status, 401);
  const missing = step('missing');
  assert.is(missing.status, 404);
  assert.is(missing.body.code, 'rest_post_invalid_id');
  // Ten wrong passwords for one account, then 429 with a Retry-After the page can read (an exposed header).
  const throttled = step('throttled');
  assert.is(throttled.status, 429);
  assert.is(throttled.body.code, 'rest_too_many_requests');
  assert.match(throttled.headers!['Retry-After'] ?? '', /^[1-9]\d*$/);

  // What the site holds afterwards: the three posts and no media; the browser's post and upload are gone.
  assert.is((await t.request('GET', `/core/v2/posts/${created.body.id}`, { as: editor })).status, 404);
  assert.is((await t.request('GET', `/core/v2/media/${uploaded.body.id}`, { as: editor })).status, 404);
  const held = await t.request('GET', '/core/v2/posts?status=any&per_page=100&context=edit', { as: editor });
  assert.equal(held.body.map((post: any) => post.title.raw).sort(), ['One', 'Three', 'Two']);
}

(haveChromium ? browser : browser.skip)(
  'any origin (the default): lists with the paging headers, writes through preflights, reads errors',
  async () => {
    const { t, editor } = await siteWithPosts();
    const front = await pageServer();
    try {
      assert.is.not(front.origin, new URL(t.url).origin);
      front.serve({
        site: t.url,
        auth: editor.auth,
        wrongAuth: basic(editor.login, 'not the password'),
        guessAuth: basic('guessed', 'a guess'),
      });
      const { steps } = await visit(instance, front.origin);
      await assertFullSequence(steps, t, editor);
    } finally {
      await front.close();
      await t.close();
    }
  },
);

(haveChromium ? browser : browser.skip)(
  'with CORS_ALLOWED_ORIGINS: the listed origin works, another is blocked by the browser and its writes never land',
  async () => {
    const allowed = await pageServer();
    const other = await pageServer();
    const { t, editor } = await siteWithPosts([allowed.origin]);
    try {
      const config = {
        site: t.url,
        auth: editor.auth,
        wrongAuth: basic(editor.login, 'not the password'),
        guessAuth: basic('guessed', 'a guess'),
      };
      other.serve(config);
      const blocked = await visit(instance, other.origin);
      assert.equal(
        blocked.steps.map((s) => s.name),
        [
          'list',
          'jsonp',
          'create',
          'update',
          'list after create',
          'upload',
          'shown',
          'delete',
          'delete upload',
          'wrong password',
          'missing',
          'throttled',
        ],
      );
      for (const s of blocked.steps.filter((s) => s.name !== 'shown' && s.name !== 'jsonp'))
        assert.is(s.failed, 'Failed to fetch', `${s.name}: ${JSON.stringify(s)}`);
      // A script element is not subject to CORS: JSONP reads public posts from any origin, as in WordPress.
      assert.equal(blocked.steps.find((s) => s.name === 'jsonp')!.body, ['Three', 'Two']);
      // Chromium says why on the console.
      assert.ok(
        blocked.console.some((line) => line.includes(`from origin '${other.origin}' has been blocked by CORS policy`)),
        blocked.console.join('\n'),
      );
      // The preflights were refused, so the writes were never sent: the site holds its three posts and no media.
      const held = await t.request('GET', '/core/v2/posts?status=any&per_page=100&context=edit', { as: editor });
      assert.equal(held.body.map((post: any) => post.title.raw).sort(), ['One', 'Three', 'Two']);
      assert.equal((await t.request('GET', '/core/v2/media', { as: editor })).body, []);

      allowed.serve(config);
      await assertFullSequence((await visit(instance, allowed.origin)).steps, t, editor);
    } finally {
      await allowed.close();
      await other.close();
      await t.close();
    }
  },
);

browser.run();
