/**
 * The real WordPress post editor against palimpsest: @wordpress/edit-post's `initializeEditor()`, built from the npm
 * packages by esbuild (test/support/editorBundle.ts), served from a second loopback server (another origin) and run
 * in Debian's headless Chromium through playwright-core. The page points api-fetch at the site's `/wp-json/`
 * (API_DIALECT=wordpress) and signs every request with an application password, as docs/editor.md describes.
 *
 * For an administrator and for an author, on a post of their own, the editor loads the post, a person types into
 * its paragraph and presses Save (api-fetch sends it as POST with `X-HTTP-Method-Override: PUT`), the editor
 * autosaves (its own `autosave()` action, dispatched on the page's registry), lists the post's revisions, and
 * inserts an image by uploading a file through the image block and then again from the inserter's Media tab,
 * saving after each. Each step is checked over REST afterwards, and the saves and the autosave appear in the post's
 * `/core/v2/posts/{id}/history` with the person who made them. When the person's application password is revoked
 * while the page is open, Save fails with the site's reason shown and nothing is written. Skipped, with a notice,
 * only when /usr/bin/chromium is missing.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import type { Browser, BrowserContext, Frame, Page, Request } from 'playwright-core';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';
import type { Role } from '../../src/access/capabilities';
import { buildEditorBundle } from '../support/editorBundle';
import type { EditorBundle } from '../support/editorBundle';

const CHROMIUM = '/usr/bin/chromium';
/** The longest one step may wait for the editor (the first load of a 20 MB script included). */
const STEP_TIMEOUT = 60_000;

/** The settings WordPress prints into post.php for the editor, as far as they matter without wp-admin. */
const EDITOR_SETTINGS = {
  richEditingEnabled: true,
  codeEditingEnabled: true,
  // Autosaves happen when the test asks for one, not on a timer.
  autosaveInterval: 3600,
  localAutosaveInterval: 3600,
  alignWide: true,
  styles: [],
  allowedMimeTypes: { 'jpg|jpeg|jpe': 'image/jpeg', png: 'image/png', gif: 'image/gif', webp: 'image/webp' },
  maxUploadFileSize: 8 * 1024 * 1024,
  // The inserter's Media tab lists the site's own media only (no third-party image search).
  enableOpenverseMediaCategory: false,
};

interface EditorServer {
  origin: string;
  close(): Promise<void>;
}

/** A loopback server on its own port: `/?post=ID&auth=…` is the editor page for that post, with the bundle beside it. */
async function editorServer(bundle: EditorBundle, site: string): Promise<EditorServer> {
  const js = fs.readFileSync(bundle.js);
  const css = fs.readFileSync(bundle.css);
  const server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://page');
    if (url.pathname === '/editor.js')
      response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' }).end(js);
    else if (url.pathname === '/editor.css')
      response.writeHead(200, { 'content-type': 'text/css; charset=utf-8' }).end(css);
    else if (url.pathname === '/' && url.searchParams.has('post')) {
      const config = {
        root: `${site}/wp-json/`,
        auth: url.searchParams.get('auth'),
        postType: 'post',
        postId: Number(url.searchParams.get('post')),
        settings: EDITOR_SETTINGS,
      };
      response
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          [
            '<!doctype html><html><head><meta charset="utf-8"><title>Edit Post</title>',
            '<link rel="stylesheet" href="/editor.css"></head>',
            '<body class="wp-admin block-editor-page"><div id="editor" class="block-editor"></div>',
            `<script type="application/json" id="editor-config">${JSON.stringify(config).replace(/</g, '\\u003c')}</script>`,
            '<script src="/editor.js"></script></body></html>',
          ].join('\n'),
        );
    } else response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The editor's stores on the page (`window.wp.data`), for a step run in the page. */
type Wp = { data: any };

/** The frame the post's blocks are in: the editor's canvas iframe when it uses one, else the page itself. */
async function canvas(page: Page): Promise<Frame> {
  const iframe = await page.$('iframe[name="editor-canvas"]');
  const frame = iframe ? await iframe.contentFrame() : null;
  return frame ?? page.mainFrame();
}

/** Waits until the editor holds no unsaved edits and no save is under way. */
async function settled(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const editor = (globalThis as unknown as { wp: Wp }).wp.data.select('core/editor');
      return !editor.isSavingPost() && !editor.isAutosavingPost() && !editor.isEditedPostDirty();
    },
    undefined,
    { timeout: STEP_TIMEOUT },
  );
}

/** Opens the block inserter (the "+" in the toolbar) unless it is open: on a wide screen it stays open after use. */
async function openInserter(page: Page): Promise<void> {
  const toggle = page.locator('.editor-document-tools__inserter-toggle');
  if ((await toggle.getAttribute('aria-expanded')) !== 'true') await toggle.click();
  await page.locator('.block-editor-inserter__menu').waitFor();
}

const png = () =>
  sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 60, b: 20 } } })
    .png()
    .toBuffer();

const haveChromium = fs.existsSync(CHROMIUM);
if (!haveChromium)
  console.log(`NOTICE: ${CHROMIUM} is missing: the block editor tests are skipped (apt-get install -y chromium).`);

const editor = suite('the WordPress post editor (edit-post) in headless Chromium');
let browser: Browser;
let bundle: EditorBundle;
let t: TestSite;
let front: EditorServer;

editor.before(async () => {
  if (!haveChromium) return;
  bundle = await buildEditorBundle();
  browser = await chromium.launch({
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
editor.after(async () => {
  if (!haveChromium) return;
  await browser?.close();
});

/**
 * Each person on a site of their own, so that the media library holds only their uploads: an author's context=edit
 * list of someone else's images is short of its X-WP-Total (as in WordPress 6.1), which the Media tab cannot show
 * (docs/editor.md).
 */
async function onItsOwnSite(login: string, role: Role, refusedTo: string[]): Promise<void> {
  t = await startTestSite({ apiDialect: 'wordpress' });
  front = await editorServer(bundle, t.url);
  try {
    await editAPost(await t.createUser(login, role), role, refusedTo);
  } finally {
    await front.close();
    await t.close();
  }
}

/** A page in a fresh browser context, with what goes wrong on it collected as it happens. */
async function watchedPage(): Promise<{
  context: BrowserContext;
  page: Page;
  problems: string[];
  refused: string[];
  writes: Request[];
}> {
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.setDefaultTimeout(STEP_TIMEOUT);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  // Errors the editor logs (a refused request's own line aside: those are judged by their answers below).
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
      problems.push(`console: ${message.text()}`);
  });
  const refused: string[] = [];
  page.on('response', (response) => {
    if (!response.url().startsWith(t.url) || response.status() < 400) return;
    if (response.request().method() === 'GET' && response.status() === 403)
      refused.push(new URL(response.url()).pathname);
    else problems.push(`${response.status()} ${response.request().method()} ${response.url()}`);
  });
  page.on('requestfailed', (request) => {
    if (request.url().startsWith(t.url))
      problems.push(`failed ${request.method()} ${request.url()}: ${request.failure()?.errorText}`);
  });
  // Loopback only: anything else the editor would fetch is refused and reported.
  await context.route(
    (url) => (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '127.0.0.1',
    (route) => {
      problems.push(`off-machine request: ${route.request().url()}`);
      return route.abort();
    },
  );
  const writes: Request[] = [];
  page.on('request', (request) => {
    if (request.url().startsWith(t.url) && request.method() !== 'GET' && request.method() !== 'OPTIONS')
      writes.push(request);
  });
  return { context, page, problems, refused, writes };
}

/** Opens the editor on a post as a person, and waits for its blocks; the frame they are in. */
async function openEditor(page: Page, person: TestUser, id: number): Promise<Frame> {
  await page.goto(`${front.origin}/?post=${id}&auth=${encodeURIComponent(person.auth)}`);
  await page.waitForSelector('.editor-post-publish-button, .editor-post-publish-panel__toggle');
  const frame = await canvas(page);
  await frame.locator('[data-type="core/paragraph"]').first().waitFor();
  return frame;
}

/** A step run in the page, bounded like the others (page.evaluate itself waits as long as its promise). */
function bounded<T>(step: string, run: () => Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${step}: no answer in ${STEP_TIMEOUT} ms`)), STEP_TIMEOUT);
  });
  return Promise.race([run(), timeout]).finally(() => clearTimeout(timer));
}

/** What one person does in the editor, and what the site holds afterwards. */
async function editAPost(person: TestUser, role: string, refusedTo: string[]): Promise<void> {
  assert.is.not(front.origin, new URL(t.url).origin);
  const created = await t.request('POST', '/wp-json/wp/v2/posts', {
    as: person,
    body: {
      title: `Written by the ${role}`,
      content: '<!-- wp:paragraph -->\n<p>First words.</p>\n<!-- /wp:paragraph -->',
      status: 'publish',
    },
  });
  assert.is(created.status, 201, created.text);
  const id: number = created.body.id;
  const read = async () => (await t.request('GET', `/wp-json/wp/v2/posts/${id}?context=edit`, { as: person })).body;

  const { context, page, problems, refused, writes } = await watchedPage();
  try {
    // Load: the post's title and paragraph, as the site holds them, are in the editor.
    const frame = await openEditor(page, person, id);
    const paragraph = frame.locator('[data-type="core/paragraph"]').first();
    assert.is(await paragraph.textContent(), 'First words.');
    assert.is((await frame.locator('.editor-post-title').textContent())?.trim(), `Written by the ${role}`);

    // Type at the end of the paragraph, then press Save.
    await paragraph.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Typed in the editor.');
    const saveButton = page.locator('.editor-post-publish-button');
    assert.is((await saveButton.textContent())?.trim(), 'Save');
    const saving = page.waitForRequest(
      (request) => request.url().startsWith(`${t.url}/wp-json/wp/v2/posts/${id}`) && request.method() === 'POST',
    );
    await saveButton.click();
    const saveRequest = await saving;
    assert.is(saveRequest.headers()['x-http-method-override'], 'PUT');
    assert.ok((await saveRequest.response())!.ok());
    await settled(page);
    const saved = await read();
    assert.is(
      saved.content.raw,
      '<!-- wp:paragraph -->\n<p>First words. Typed in the editor.</p>\n<!-- /wp:paragraph -->',
    );
    assert.is(saved.status, 'publish');

    // Autosave: more text, then the editor's own autosave action on the page's registry.
    await paragraph.click();
    await page.keyboard.press('End');
    await page.keyboard.type(' Kept by the autosave.');
    await bounded('autosave', () =>
      page.evaluate(() => (globalThis as unknown as { wp: Wp }).wp.data.dispatch('core/editor').autosave()),
    );
    await page.waitForFunction(
      () => !(globalThis as unknown as { wp: Wp }).wp.data.select('core/editor').isAutosavingPost(),
    );
    const autosaves = (await t.request('GET', `/wp-json/wp/v2/posts/${id}/autosaves?context=edit`, { as: person }))
      .body;
    assert.is(autosaves.length, 1, JSON.stringify(autosaves));
    assert.is(autosaves[0].author, person.id);
    assert.ok(
      autosaves[0].content.raw.includes('Typed in the editor. Kept by the autosave.'),
      autosaves[0].content.raw,
    );
    // A published post's autosave is a revision beside it: the post itself is unchanged.
    assert.is((await read()).content.raw, saved.content.raw);

    // Revisions, as the editor lists them (core-data's getRevisions) and as the site lists them.
    const listed = await bounded('getRevisions', () =>
      page.evaluate(
        (postId) =>
          (globalThis as unknown as { wp: Wp }).wp.data
            .resolveSelect('core')
            .getRevisions('postType', 'post', postId, { per_page: 100, context: 'edit' }),
        id,
      ),
    );
    const revisions = (await t.request('GET', `/wp-json/wp/v2/posts/${id}/revisions?context=edit`, { as: person }))
      .body as any[];
    assert.equal(
      listed.map((revision: any) => revision.id),
      revisions.map((revision) => revision.id),
    );
    // As in WordPress, the list holds the autosave too (newest first), then the revision the save made.
    assert.equal(
      revisions.map((revision) => [revision.author, revision.content.raw]),
      [
        [person.id, autosaves[0].content.raw],
        [person.id, saved.content.raw],
      ],
    );
    assert.is(revisions[0].id, autosaves[0].id);

    // An image: an Image block from the inserter, its file uploaded through the block's Upload.
    const imageBlock = frame.locator('[data-type="core/image"]').first();
    // The inserter filters its list as the search is typed; a click that lands while it redraws is lost, so the
    // item is clicked again (three tries at most) until the block is there.
    for (let attempt = 1; attempt <= 3; attempt++) {
      await openInserter(page);
      await page.locator('.block-editor-inserter__search input').fill('Image');
      await page.locator('.block-editor-block-types-list__item.editor-block-list-item-image').first().click();
      const inserted = await imageBlock.waitFor({ timeout: 15_000 }).then(
        () => true,
        () => false,
      );
      if (inserted) break;
    }
    await imageBlock.waitFor();
    const uploading = page.waitForResponse(
      (response) => response.url().startsWith(`${t.url}/wp-json/wp/v2/media`) && response.request().method() === 'POST',
    );
    await imageBlock
      .locator('input[type="file"]')
      .setInputFiles({ name: 'drawn.png', mimeType: 'image/png', buffer: await png() });
    const upload = await (await uploading).json();
    assert.is(upload.author, person.id);
    assert.is(upload.mime_type, 'image/png');
    await frame.locator(`[data-type="core/image"] img[src="${upload.source_url}"]`).waitFor();
    await page.locator('.editor-post-publish-button').click();
    await settled(page);
    const withImage = (await read()).content.raw as string;
    assert.match(withImage, `<!-- wp:image {"id":${upload.id}`);
    assert.match(withImage, `src="${upload.source_url}"`);
    assert.match(withImage, `wp-image-${upload.id}`);

    // The same image again, from the inserter's Media tab, which lists the site's images (GET /wp/v2/media).
    await openInserter(page);
    await page.getByRole('tab', { name: 'Media', exact: true }).click();
    await page.getByRole('tab', { name: 'Images', exact: true }).click();
    await page.locator('.block-editor-inserter__media-list__item').first().click();
    await frame.locator('[data-type="core/image"]').nth(1).waitFor();
    await page.locator('.editor-post-publish-button').click();
    await settled(page);
    const withTwo = (await read()).content.raw as string;
    assert.is(withTwo.split(`<!-- wp:image {"id":${upload.id}`).length - 1, 2, withTwo);
    assert.is(withTwo.split(`src="${upload.source_url}"`).length - 1, 2, withTwo);

    for (const request of writes) assert.is.not(request.method(), 'PUT', `${request.url()} went as PUT`);
    assert.equal(problems, []);
    // What the site refused the editor to read: for an author, as WordPress 6.1 does, the template lookup and the
    // theme's global styles (they need `edit_theme_options`); the editor goes on without them.
    assert.equal([...new Set(refused)].sort(), refusedTo);

    // The post's history: the creation, the saves and the autosave, each with the person who made it.
    const history = (await t.request('GET', `/core/v2/posts/${id}/history?per_page=100`, { as: person })).body as any[];
    const types = history.map((entry) => entry.type);
    assert.is(types.filter((type) => type === 'PostUpdated').length, 3, JSON.stringify(types));
    assert.is(types.filter((type) => type === 'PostAutosaved').length, 1, JSON.stringify(types));
    for (const entry of history) assert.is(entry.user, person.id, JSON.stringify(entry));
    const updates = history.filter((entry) => entry.type === 'PostUpdated');
    assert.is(updates[0].diff.content.to, saved.content.raw);
    assert.is(updates[1].diff.content.to, withImage);
    assert.is(updates[2].diff.content.to, withTwo);
  } catch (error) {
    const shot = `/tmp/palimpsest-editor-${role}.png`;
    await page.screenshot({ path: shot }).catch(() => undefined);
    console.log(
      `the ${role}'s editor when the step failed: ${shot}; what went wrong on the page: ${problems.join('; ') || 'nothing'}; refused: ${refused.join(', ') || 'nothing'}`,
    );
    for (const request of writes) {
      const body = request.headers()['content-type']?.startsWith('application/json')
        ? (request.postData() ?? '').slice(0, 300)
        : '';
      console.log(
        `  sent ${request.method()} ${request.url()} ${request.headers()['x-http-method-override'] ?? ''} ${body}`,
      );
    }
    throw error;
  } finally {
    await context.close();
  }
}

(haveChromium ? editor : editor.skip)(
  'an administrator loads a post, types, saves, autosaves, lists revisions and uploads an image',
  async () => {
    await onItsOwnSite('admin', 'administrator', []);
  },
);

(haveChromium ? editor : editor.skip)('an author does the same on a post of their own', async () => {
  await onItsOwnSite('author', 'author', [
    '/wp-json/wp/v2/global-styles/2',
    '/wp-json/wp/v2/global-styles/themes/palimpsest',
    '/wp-json/wp/v2/global-styles/themes/palimpsest/variations',
    '/wp-json/wp/v2/templates/lookup',
  ]);
});

(haveChromium ? editor : editor.skip)(
  'an application password revoked while editing: Save fails with the reason shown and nothing lands',
  async () => {
    t = await startTestSite({ apiDialect: 'wordpress' });
    front = await editorServer(bundle, t.url);
    const admin = await t.createUser('admin', 'administrator');
    const author = await t.createUser('author', 'author');
    const { context, page, problems } = await watchedPage();
    try {
      const created = await t.request('POST', '/wp-json/wp/v2/posts', {
        as: author,
        body: {
          title: 'Kept as it was',
          content: '<!-- wp:paragraph -->\n<p>First words.</p>\n<!-- /wp:paragraph -->',
          status: 'publish',
        },
      });
      const id: number = created.body.id;
      const frame = await openEditor(page, author, id);
      await frame.locator('[data-type="core/paragraph"]').first().click();
      await page.keyboard.press('End');
      await page.keyboard.type(' Never saved.');

      // The author's password is revoked (with itself, as a person does from their profile) while the page is open.
      const current = await t.request('GET', '/wp-json/wp/v2/users/me/application-passwords/introspect', {
        as: author,
      });
      assert.is(current.status, 200, current.text);
      assert.is(
        (
          await t.request('DELETE', `/wp-json/wp/v2/users/me/application-passwords/${current.body.uuid}`, {
            as: author,
          })
        ).status,
        200,
      );

      const saving = page.waitForResponse(
        (response) =>
          response.url().startsWith(`${t.url}/wp-json/wp/v2/posts/${id}`) && response.request().method() === 'POST',
      );
      await page.locator('.editor-post-publish-button').click();
      const refusal = await saving;
      assert.is(refusal.status(), 401);
      const reason = (await refusal.json()) as { code: string; message: string };
      // The editor says so, with the site's reason, and keeps the edit for another try.
      const notice = page.locator('.components-notice.is-error');
      await notice.waitFor();
      assert.match((await notice.textContent()) ?? '', 'Updating failed.');
      assert.match((await notice.textContent()) ?? '', reason.message);
      assert.ok(
        await page.evaluate(() =>
          (globalThis as unknown as { wp: Wp }).wp.data.select('core/editor').isEditedPostDirty(),
        ),
      );
      assert.equal(problems, [`401 POST ${t.url}/wp-json/wp/v2/posts/${id}?_locale=user`]);

      const held = await t.request('GET', `/wp-json/wp/v2/posts/${id}?context=edit`, { as: admin });
      assert.is(held.body.content.raw, created.body.content.raw);
      const history = await t.request('GET', `/core/v2/posts/${id}/history`, { as: admin });
      assert.equal(
        history.body.map((entry: any) => entry.type),
        ['PostCreated'],
      );
    } catch (error) {
      await page.screenshot({ path: '/tmp/palimpsest-editor-revoked.png' }).catch(() => undefined);
      console.log(
        `the editor when the step failed: /tmp/palimpsest-editor-revoked.png; what went wrong on the page: ${problems.join('; ')}`,
      );
      throw error;
    } finally {
      await context.close();
      await front.close();
      await t.close();
    }
  },
);

editor.run();
