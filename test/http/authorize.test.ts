/**
 * The authorization page (`/wp-admin/authorize-application.php`) with real HTTP requests, and in a real
 * headless Chromium: the form, sign-in with the login password, approval (redirect with site_url,
 * user_login and password, or the password shown), rejection (`success=false`), the redirect-URL rules, the
 * CSRF token, and throttled sign-in. The browser test is skipped, with a notice, only when /usr/bin/chromium
 * is missing (CI installs it).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fs from 'node:fs';
import zlib from 'node:zlib';
import { randomBytes, scryptSync } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium } from 'playwright-core';
import { startTestSite } from '../support/testSite';
import { configureLoginChecks } from '../../src/access/loginChecks';
import type { TestSite, TestUser } from '../support/testSite';
import { loadUserState } from '../../src/resources/users/operations';
import { userDecider } from '../../src/resources/users/decider';
import { userStreamId } from '../../src/resources/users/events';

const PAGE = '/wp-admin/authorize-application.php';
const CHROMIUM = '/usr/bin/chromium';

interface Page {
  status: number;
  headers: Headers;
  html: string;
  token: string;
  cookie: string;
}

async function open(t: TestSite, query: Record<string, string>, cookie?: string): Promise<Page> {
  const response = await fetch(`${t.url}${PAGE}?${new URLSearchParams(query)}`, { headers: cookie ? { cookie } : {} });
  const html = await response.text();
  const token = /name="token" value="([^"]+)"/.exec(html)?.[1] ?? '';
  const cookie_ = (response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  return { status: response.status, headers: response.headers, html, token, cookie: cookie_ };
}

async function submit(t: TestSite, form: Record<string, string>, cookie: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${t.url}${PAGE}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie, ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return { status: response.status, headers: response.headers, html: await response.text() };
}

/** The hidden fields of the page, as a browser would send them back. */
function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = match[2]!
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>');
  }
  return fields;
}

const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString('base64')}`;

async function userWithLoginPassword(t: TestSite, admin: TestUser, login: string, password: string): Promise<number> {
  const response = await t.request('POST', '/core/v2/users', {
    as: admin,
    body: { username: login, email: `${login}@example.test`, password, roles: ['author'] },
  });
  assert.is(response.status, 201, response.text);
  return response.body.id;
}

// ---------------------------------------------------------------------------------------------------------------

const pages = suite('authorization page over HTTP');
let t: TestSite;
let admin: TestUser;
let adaId: number;

pages.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  adaId = await userWithLoginPassword(t, admin, 'ada', 'analytical engine');
});
pages.after(async () => t.close());

pages('GET: an accessible HTML form with a CSRF token, a SameSite cookie and protective headers', async () => {
  const page = await open(t, {
    app_name: 'Calculator <3',
    app_id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
    success_url: 'https://app.example/done?x=1',
  });
  assert.is(page.status, 200);
  assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.is(page.headers.get('x-frame-options'), 'DENY');
  assert.is(page.headers.get('cache-control'), 'no-store');
  assert.match(page.headers.get('content-security-policy')!, /frame-ancestors 'none'/);
  assert.match(
    page.headers.get('set-cookie')!,
    /^palimpsest_authorize=[\w-]{22}; Path=\/wp-admin\/authorize-application\.php; Max-Age=1800; HttpOnly; SameSite=Strict$/,
  );
  assert.match(page.html, /^<!doctype html>\n<html lang="en">/);
  assert.match(page.html, /<h1>Authorize an application<\/h1>/);
  assert.match(page.html, /<form method="post" action="\/wp-admin\/authorize-application\.php">/);
  for (const [id, label] of [
    ['log', 'Username or email address'],
    ['pwd', 'Password'],
    ['app_name', 'Name of the new application password'],
  ]) {
    assert.match(page.html, new RegExp(`<label for="${id}">${label}</label>\\n<input [^>]*id="${id}"`));
  }
  assert.match(page.html, /<button type="submit" class="approve" name="approve"/);
  assert.match(page.html, /<button type="submit" class="reject" name="reject" value="1" formnovalidate/);
  // Untrusted input is escaped, never interpreted.
  assert.match(page.html, /<strong>Calculator &lt;3<\/strong>/);
  assert.not.match(page.html, /<script/i);
  assert.match(page.token, /^\d+\.[\w-]{43}$/);
  assert.equal(hiddenFields(page.html), {
    token: page.token,
    app_id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
    success_url: 'https://app.example/done?x=1',
    reject_url: 'https://app.example/done?x=1&success=false',
  });
});

pages(
  'redirect targets must be https, or http on a loopback host; app_id a UUID; otherwise a 400 page says why',
  async () => {
    for (const url of [
      'https://app.example/cb',
      'http://localhost:8000/cb',
      'http://127.0.0.1/cb',
      'http://[::1]:9/cb',
      'http://app.localhost/cb',
    ]) {
      assert.is((await open(t, { app_name: 'x', success_url: url })).status, 200, url);
    }
    const cases: [Record<string, string>, string][] = [
      [{ success_url: 'http://app.example/cb' }, 'The success URL (success_url) must use https'],
      [{ reject_url: 'http://app.example/no' }, 'The rejection URL (reject_url) must use https'],
      [{ success_url: 'javascript:alert(1)' }, 'The success URL (success_url) must be an https address.'],
      [{ success_url: 'not a url' }, 'The success URL (success_url) is not a valid absolute URL.'],
      [{ app_id: 'not-a-uuid' }, 'The application id (app_id) must be a UUID.'],
    ];
    for (const [query, message] of cases) {
      const page = await open(t, { app_name: 'x', ...query });
      assert.is(page.status, 400, JSON.stringify(query));
      assert.is(page.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(page.html, /<h1>This authorization request cannot be accepted<\/h1>/);
      assert.match(page.html, /role="alert"/);
      assert.ok(page.html.includes(message), message);
      assert.not.match(page.html, /<form/);
    }
  },
);

pages(
  'approve: signs in with the login password, creates the application password, redirects with it (302)',
  async () => {
    const page = await open(t, {
      app_name: 'Calculator',
      app_id: '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
      success_url: 'https://app.example/done?state=abc',
    });
    const response = await submit(
      t,
      { ...hiddenFields(page.html), app_name: 'Calculator', log: 'ada', pwd: 'analytical engine', approve: '1' },
      page.cookie,
    );
    assert.is(response.status, 302);
    const location = new URL(response.headers.get('location')!);
    assert.is(`${location.origin}${location.pathname}`, 'https://app.example/done');
    assert.is(location.searchParams.get('state'), 'abc');
    assert.is(location.searchParams.get('site_url'), t.url);
    assert.is(location.searchParams.get('user_login'), 'ada');
    const password = location.searchParams.get('password')!;
    assert.match(password, /^[A-Za-z0-9]{24}$/);
    assert.is(response.headers.get('referrer-policy'), 'no-referrer');
    // The new password works, under the chosen name and app id.
    const me = await t.request('GET', '/core/v2/users/me/application-passwords/introspect', {
      headers: { authorization: basic('ada', password) },
    });
    assert.is(me.status, 200);
    assert.is(me.body.name, 'Calculator');
    assert.is(me.body.app_id, '1b4e28ba-2fa1-11d2-883f-0016d3cca427');
    assert.is(me.body.uuid.length, 36);
  },
);

pages('approve without success_url: the password is shown once on the page; email sign-in works too', async () => {
  const page = await open(t, { app_name: 'Desktop' });
  const response = await submit(
    t,
    {
      ...hiddenFields(page.html),
      app_name: 'My desktop',
      log: 'ada@example.test',
      pwd: 'analytical engine',
      approve: '1',
    },
    page.cookie,
  );
  assert.is(response.status, 200);
  const shown = /id="new-password" value="([^"]+)"/.exec(response.html)?.[1];
  assert.ok(shown);
  assert.match(shown!, /^[A-Za-z0-9]{4}( [A-Za-z0-9]{4}){5}$/);
  assert.match(response.html, /<label for="new-password">Application password for My desktop \(user ada\)<\/label>/);
  assert.is(
    (await t.request('GET', '/core/v2/users/me', { headers: { authorization: basic('ada', shown!) } })).body.id,
    adaId,
  );
});

pages(
  'reject: to reject_url with success=false (derived from success_url when absent); no target: a page',
  async () => {
    const explicit = await open(t, {
      app_name: 'x',
      success_url: 'https://app.example/yes',
      reject_url: 'https://app.example/no?y=2',
    });
    const rejected = await submit(t, { ...hiddenFields(explicit.html), app_name: 'x', reject: '1' }, explicit.cookie);
    assert.is(rejected.status, 302);
    assert.is(rejected.headers.get('location'), 'https://app.example/no?y=2&success=false');
    const derived = await open(t, { app_name: 'x', success_url: 'https://app.example/yes' });
    const back = await submit(t, { ...hiddenFields(derived.html), app_name: 'x', reject: '1' }, derived.cookie);
    assert.is(back.headers.get('location'), 'https://app.example/yes?success=false');
    const none = await open(t, { app_name: 'x' });
    const page = await submit(t, { ...hiddenFields(none.html), app_name: 'x', reject: '1' }, none.cookie);
    assert.is(page.status, 200);
    assert.match(page.html, /You rejected the request/);
  },
);

pages(
  'the token: refused without the cookie, with a changed redirect target, or once expired (403, nothing done)',
  async () => {
    const before = (await t.request('GET', `/core/v2/users/${adaId}/application-passwords`, { as: admin })).body.length;
    const page = await open(t, { app_name: 'x', success_url: 'https://app.example/done' });
    const form = { ...hiddenFields(page.html), app_name: 'Forged', log: 'ada', pwd: 'analytical engine', approve: '1' };
    const noCookie = await submit(t, form, '');
    assert.is(noCookie.status, 403);
    assert.match(noCookie.html, /This form has expired or was not sent from this site/);
    assert.is((await submit(t, { ...form, success_url: 'https://evil.example/steal' }, page.cookie)).status, 403);
    assert.is((await submit(t, { ...form, token: '' }, page.cookie)).status, 403);
    const other = await open(t, { app_name: 'x' });
    assert.is((await submit(t, form, other.cookie.replace(/=.*/, '=AAAAAAAAAAAAAAAAAAAAAA'))).status, 403);
    t.clock.advance(31 * 60 * 1000);
    assert.is((await submit(t, form, page.cookie)).status, 403);
    const after = (await t.request('GET', `/core/v2/users/${adaId}/application-passwords`, { as: admin })).body.length;
    assert.is(after, before);
    // A fresh page (the browser keeps its nonce) works again.
    const fresh = await open(t, { app_name: 'x', success_url: 'https://app.example/done' }, page.cookie);
    assert.is(fresh.cookie, page.cookie);
    assert.is(
      (
        await submit(
          t,
          { ...hiddenFields(fresh.html), app_name: 'Fresh', log: 'ada', pwd: 'analytical engine', approve: '1' },
          page.cookie,
        )
      ).status,
      302,
    );
  },
);

pages(
  'wrong password, unknown login, a user without a login password: 403 with the form again and nothing created',
  async () => {
    const cliUser = await t.createUser('cli', 'editor');
    const before = (await t.request('GET', `/core/v2/users/${adaId}/application-passwords`, { as: admin })).body.length;
    for (const [log, pwd] of [
      ['ada', 'difference engine'],
      ['nobody', 'analytical engine'],
      ['cli', cliUser.password],
      ['cli', ''],
    ]) {
      const page = await open(t, { app_name: 'x' });
      const response = await submit(
        t,
        { ...hiddenFields(page.html), app_name: 'Nope', log, pwd, approve: '1' },
        page.cookie,
      );
      assert.is(response.status, pwd === '' ? 400 : 403, `${log}/${pwd}`);
      assert.match(response.html, /role="alert"/);
      assert.match(response.html, /<form method="post"/);
      assert.match(response.html, new RegExp(`id="log" name="log" value="${log}"`));
    }
    assert.is(
      (await t.request('GET', `/core/v2/users/${adaId}/application-passwords`, { as: admin })).body.length,
      before,
    );
  },
);

pages('a name already used by one of the user’s application passwords: 409 with the form again', async () => {
  const page = await open(t, { app_name: 'Calculator' });
  const response = await submit(
    t,
    { ...hiddenFields(page.html), app_name: 'calculator', log: 'ada', pwd: 'analytical engine', approve: '1' },
    page.cookie,
  );
  assert.is(response.status, 409);
  assert.match(response.html, /You already have an application password with this name/);
});

pages('sign-in failures are throttled like Basic authentication (429 with Retry-After)', async () => {
  const id = await userWithLoginPassword(t, admin, 'babbage', 'difference engine');
  const headers = { 'x-forwarded-for': '203.0.113.77' };
  let page = await open(t, { app_name: 'x' });
  for (let i = 0; i < 10; i++) {
    const response = await submit(
      t,
      { ...hiddenFields(page.html), app_name: 'Guess', log: 'babbage', pwd: `guess ${i}`, approve: '1' },
      page.cookie,
      headers,
    );
    assert.is(response.status, 403);
  }
  page = await open(t, { app_name: 'x' });
  const refused = await submit(
    t,
    { ...hiddenFields(page.html), app_name: 'Real', log: 'babbage', pwd: 'difference engine', approve: '1' },
    page.cookie,
    headers,
  );
  assert.is(refused.status, 429);
  assert.is(refused.headers.get('retry-after'), '60');
  assert.match(refused.html, /Too many failed sign-in attempts/);
  assert.equal((await t.request('GET', `/core/v2/users/${id}/application-passwords`, { as: admin })).body, []);
});

pages(
  'a login password hashed by an earlier version (scrypt) still signs in, and is rehashed with bcrypt then',
  async () => {
    const id = await userWithLoginPassword(t, admin, 'hopper', 'placeholder');
    const salt = randomBytes(16);
    const legacy = [
      'scrypt',
      2 ** 14,
      8,
      1,
      salt.toString('base64url'),
      scryptSync('compiler', salt, 32, { N: 2 ** 14, r: 8, p: 1 }).toString('base64url'),
    ].join('$');
    await t.site.commands.handle(
      userStreamId(id),
      userDecider,
      { kind: 'update', id, changes: {}, passwordHash: legacy },
      t.site.metadata(id, 'legacy-hash'),
    );
    assert.is((await loadUserState(t.site, id)).user!.passwordHash, legacy);
    const page = await open(t, { app_name: 'x', success_url: 'https://app.example/done' });
    const response = await submit(
      t,
      { ...hiddenFields(page.html), app_name: 'Legacy', log: 'hopper', pwd: 'compiler', approve: '1' },
      page.cookie,
    );
    assert.is(response.status, 302);
    const rehashed = (await loadUserState(t.site, id)).user!.passwordHash!;
    assert.match(rehashed, /^bcrypt-sha384\$\$2b\$/);
    // The new hash verifies the same password on the next sign-in.
    const again = await open(t, { app_name: 'x', success_url: 'https://app.example/done' });
    assert.is(
      (
        await submit(
          t,
          { ...hiddenFields(again.html), app_name: 'Legacy 2', log: 'hopper', pwd: 'compiler', approve: '1' },
          again.cookie,
        )
      ).status,
      302,
    );
    assert.is((await loadUserState(t.site, id)).user!.passwordHash, rehashed);
  },
);

pages('other methods: 405 with Allow', async () => {
  const response = await fetch(`${t.url}${PAGE}`, { method: 'PUT' });
  assert.is(response.status, 405);
  assert.is(response.headers.get('allow'), 'GET, HEAD, POST');
});

/**
 * A minimal PNG reader for the screenshot check: 8-bit RGB or RGBA, not interlaced (what Chromium writes), its
 * IDAT chunks inflated and each row unfiltered.
 */
function decodePng(png: Buffer) {
  const width = png.readUInt32BE(16);
  const height = png.readUInt32BE(20);
  const [depth, colour, , , interlace] = [png[24], png[25], png[26], png[27], png[28]];
  assert.ok(
    depth === 8 && (colour === 2 || colour === 6) && interlace === 0,
    `PNG format ${depth}/${colour}/${interlace}`,
  );
  const channels = colour === 6 ? 4 : 3;
  const chunks: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === 'IDAT') chunks.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  const raw = zlib.inflateSync(Buffer.concat(chunks));
  const stride = width * channels;
  const pixels = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = y > 0 && x >= channels ? pixels[(y - 1) * stride + x - channels]! : 0;
      const paeth = () => {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      };
      const predicted = [0, left, up, (left + up) >> 1, paeth()][filter]!;
      pixels[y * stride + x] = (value + predicted) & 0xff;
    }
  }
  const pixel = (x: number, y: number): [number, number, number] => {
    const at = Math.floor(y) * stride + Math.floor(x) * channels;
    return [pixels[at]!, pixels[at + 1]!, pixels[at + 2]!];
  };
  const count = (
    box: { x: number; y: number; width: number; height: number },
    test: (rgb: [number, number, number]) => boolean,
  ) => {
    let n = 0;
    for (let y = Math.ceil(box.y); y < Math.min(height, box.y + box.height); y++) {
      for (let x = Math.ceil(box.x); x < Math.min(width, box.x + box.width); x++) if (test(pixel(x, y))) n++;
    }
    return n;
  };
  return { pixel, count };
}

// ---------------------------------------------------------------------------------------------------------------

const browser = suite('authorization page in headless Chromium');
const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium)
  console.log(
    `NOTICE: ${CHROMIUM} is missing: the headless-browser test of the authorization page is skipped (apt-get install -y chromium).`,
  );

(haveChromium ? browser : browser.skip)(
  'fill the form, approve, land on success_url with the credentials; the screenshot shows the form and its Approve button',
  async () => {
    const site = await startTestSite();
    const received: string[] = [];
    const app = http.createServer((request, response) => {
      if ((request.url ?? '').startsWith('/callback')) received.push(request.url ?? '');
      response
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>App</title><p>Connected.</p>');
    });
    await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve));
    const callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/callback?state=xyz`;
    const instance = await chromium.launch({
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
    try {
      const siteAdmin = await site.createUser('admin', 'administrator');
      await userWithLoginPassword(site, siteAdmin, 'lovelace', 'note G');
      const page = await instance.newPage({ viewport: { width: 800, height: 900 } });
      const url = `${site.url}${PAGE}?${new URLSearchParams({ app_name: 'Browser app', success_url: callback })}`;
      const shown = await page.goto(url);
      assert.is(shown!.status(), 200);
      assert.is(await page.title(), 'Authorize an application · Test site');
      assert.is(await page.getByRole('heading', { level: 1 }).textContent(), 'Authorize an application');

      const screenshotPath = path.join(os.tmpdir(), 'palimpsest-authorize.png');
      const png = await page.screenshot({ path: screenshotPath });
      assert.ok(png.length > 1000, 'a non-empty screenshot');
      assert.equal([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      assert.is(png.subarray(12, 16).toString('latin1'), 'IHDR');
      assert.is(png.readUInt32BE(16), 800);
      assert.is(png.readUInt32BE(20), 900);
      // What a person sees: the background is the page's, the heading is drawn in dark ink, and the Approve
      // button, inside the viewport, is painted in its own blue with its white label on it.
      const image = decodePng(png);
      assert.equal(image.pixel(4, 4), [255, 255, 255]);
      const heading = (await page.getByRole('heading', { level: 1 }).boundingBox())!;
      assert.ok(image.count(heading, ([r, g, b]) => r + g + b < 150) > 200, 'the heading is drawn');
      const approve = (await page.getByRole('button', { name: 'Approve' }).boundingBox())!;
      assert.ok(approve.y + approve.height <= 900, 'the Approve button is visible without scrolling');
      const area = approve.width * approve.height;
      assert.ok(
        image.count(approve, ([r, g, b]) => Math.abs(r - 0x22) + Math.abs(g - 0x71) + Math.abs(b - 0xb1) < 12) >
          area * 0.6,
        'the Approve button is blue',
      );
      assert.ok(image.count(approve, ([r, g, b]) => r > 240 && g > 240 && b > 240) > 30, 'with its label in white');

      // Fields are found by their labels and the button by its role and name: what assistive technology sees.
      await page.getByLabel('Username or email address').fill('lovelace');
      await page.getByLabel('Password', { exact: true }).fill('note G');
      assert.is(await page.getByLabel('Name of the new application password').inputValue(), 'Browser app');
      await Promise.all([page.waitForURL(/\/callback\?/), page.getByRole('button', { name: 'Approve' }).click()]);

      const landed = new URL(page.url());
      assert.is(landed.pathname, '/callback');
      assert.is(landed.searchParams.get('state'), 'xyz');
      assert.is(landed.searchParams.get('site_url'), site.url);
      assert.is(landed.searchParams.get('user_login'), 'lovelace');
      const password = landed.searchParams.get('password')!;
      assert.match(password, /^[A-Za-z0-9]{24}$/);
      assert.is(received.length, 1);
      const me = await site.request('GET', '/core/v2/users/me?context=edit', {
        headers: { authorization: basic('lovelace', password) },
      });
      assert.is(me.status, 200);
      assert.is(me.body.username, 'lovelace');

      // Rejecting needs no sign-in (the browser skips the required fields) and goes back with success=false.
      await page.goto(url);
      await Promise.all([page.waitForURL(/success=false/), page.getByRole('button', { name: 'Reject' }).click()]);
      assert.is(new URL(page.url()).searchParams.get('success'), 'false');
    } finally {
      await instance.close();
      await new Promise<void>((resolve) => app.close(() => resolve()));
      await site.close();
    }
  },
);

// ---------------------------------------------------------------------------------------------------------------

const guarded = suite('authorization page: throttled and bounded sign-in checks');

/** A site of its own (so failures of other tests count nowhere here) with `babbage` able to sign in. */
async function siteWithBabbage(): Promise<TestSite> {
  const site = await startTestSite();
  const administrator = await site.createUser('admin', 'administrator');
  await userWithLoginPassword(site, administrator, 'babbage', 'difference engine');
  return site;
}

guarded(
  'a burst of concurrent guesses, by login and by email: only as many are judged as the limit allows, the rest are 429 with Retry-After',
  async () => {
    const site = await siteWithBabbage();
    try {
      const page = await open(site, { app_name: 'x' });
      const guesses = await Promise.all(
        Array.from({ length: 14 }, (_, i) =>
          submit(
            site,
            {
              ...hiddenFields(page.html),
              app_name: 'Guess',
              log: i % 2 ? 'babbage' : 'Babbage@example.test',
              pwd: `guess ${i}`,
              approve: '1',
            },
            page.cookie,
          ),
        ),
      );
      assert.equal(guesses.map((g) => g.status).sort(), [...Array(10).fill(403), ...Array(4).fill(429)]);
      for (const refused of guesses.filter((g) => g.status === 429)) {
        assert.is(refused.headers.get('retry-after'), '60');
        assert.match(refused.html, /Too many failed sign-in attempts/);
      }
      // The right password is refused too until the window has passed: the guessing cannot go on behind the 429.
      const right = await submit(
        site,
        { ...hiddenFields(page.html), app_name: 'Real', log: 'babbage', pwd: 'difference engine', approve: '1' },
        page.cookie,
      );
      assert.is(right.status, 429);
    } finally {
      await site.close();
    }
  },
);

guarded(
  'beyond the bound on checks running and waiting: 503 with Retry-After, and the attempt is not counted',
  async () => {
    const site = await siteWithBabbage();
    try {
      let open_!: () => void;
      const gate = new Promise<void>((resolve) => (open_ = resolve));
      const checks = configureLoginChecks(site.site, { concurrent: 1, queued: 1 }, async () => {
        await gate;
        return false;
      });
      const page = await open(site, { app_name: 'x' });
      const form = (pwd: string) => ({
        ...hiddenFields(page.html),
        app_name: 'Guess',
        log: 'babbage',
        pwd,
        approve: '1',
      });
      const held = [submit(site, form('one'), page.cookie), submit(site, form('two'), page.cookie)];
      for (let i = 0; i < 500 && checks.inFlight < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      assert.is(checks.inFlight, 2);
      const busy = await submit(site, form('three'), page.cookie);
      assert.is(busy.status, 503);
      assert.is(busy.headers.get('retry-after'), '1');
      assert.match(busy.html, /Too many sign-ins are being checked right now/);
      assert.match(busy.html, /<form method="post"/);
      open_();
      assert.equal(
        (await Promise.all(held)).map((r) => r.status),
        [403, 403],
      );
      // Only the two judged attempts counted: eight more failures are allowed before the eleventh is refused.
      for (let i = 0; i < 8; i++) assert.is((await submit(site, form(`more ${i}`), page.cookie)).status, 403);
      assert.is((await submit(site, form('too many'), page.cookie)).status, 429);
    } finally {
      await site.close();
    }
  },
);

pages.run();
guarded.run();
browser.run();
