/**
 * The second instance (SITE_INSTANCE=second): the contact-form/v1 namespace (forms, feedback, refill) and the
 * `ext-disabled` status; and the first instance, where none of it exists. Black-box through the app; expected
 * values follow the form plug-in's REST API at version 5.6 (the one current with WordPress 6.1).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestResponse, TestSite, TestUser } from '../support/testSite';
import { createRecordingMailer } from '../../src/adapters/mail/loggingMailer';
import type { MailMessage } from '../../src/ports/mailer';

const FORMS = '/contact-form/v1/contact-forms';
const ITEM_ROUTE = '/contact-form/v1/contact-forms/(?P<id>\\d+)';

/** A multipart/form-data body, as a browser posts a form. */
function multipart(fields: [string, string][]): { data: string; type: string } {
  const boundary = '----palimpsestTestBoundary';
  const parts = fields.map(
    ([name, value]) => `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  return { data: `${parts.join('')}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

const errorOf = (response: TestResponse) => ({
  status: response.status,
  code: response.body?.code,
  message: response.body?.message,
});

// --- the first instance ----------------------------------------------------------------------------------------

const first = suite('first instance: no contact forms, no ext-disabled');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let contributor: TestUser;
let subscriber: TestUser;

first.before.each(async () => {
  t = await startTestSite();
  editor = await t.createUser('editor', 'editor');
});
first.after.each(async () => t.close());

first('the namespace is neither listed nor routed', async () => {
  const index = await t.request('GET', '/');
  assert.not.ok(index.body.namespaces.includes('contact-form/v1'));
  assert.not.ok(Object.keys(index.body.routes).some((route) => route.startsWith('/contact-form')));
  for (const path of ['/contact-form/v1', FORMS, `${FORMS}/1`, `${FORMS}/1/refill`]) {
    const response = await t.request('GET', path, { as: editor });
    assert.equal(
      errorOf(response),
      { status: 404, code: 'rest_no_route', message: 'No route was found matching the URL and request method.' },
      path,
    );
  }
});

first('ext-disabled is neither writable nor a list filter', async () => {
  const created = await t.request('POST', '/core/v2/posts', {
    as: editor,
    body: { title: 'x', status: 'ext-disabled' },
  });
  assert.is(created.status, 400);
  assert.is(created.body.code, 'rest_invalid_param');
  assert.ok(created.body.data.params.status);
  const listed = await t.request('GET', '/core/v2/pages?status=ext-disabled', { as: editor });
  assert.is(listed.status, 400);
  assert.is(listed.body.code, 'rest_invalid_param');
  const index = await t.request('GET', '/core/v2');
  assert.not.ok(index.body.routes['/core/v2/posts'].endpoints[1].args.status.enum.includes('ext-disabled'));
  assert.not.ok(index.body.routes['/core/v2/media'].endpoints[1].args.status.enum.includes('ext-disabled'));
});

first.run();

// --- the second instance: index and statuses -------------------------------------------------------------------

const second = suite('second instance: index and the ext-disabled status');

second.before.each(async () => {
  t = await startTestSite({ instance: 'second' });
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  contributor = await t.createUser('contributor', 'contributor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
second.after.each(async () => t.close());

second(
  'GET / lists the namespace after oEmbed, its routes without args, and no _links on the {id} routes',
  async () => {
    const index = await t.request('GET', '/');
    const namespaces: string[] = index.body.namespaces;
    assert.is(namespaces.indexOf('contact-form/v1'), namespaces.indexOf('oembed/1.0') + 1);
    const routes = index.body.routes;
    assert.equal(routes['/contact-form/v1'].endpoints[0].args.namespace.default, 'contact-form/v1');
    assert.equal(routes[FORMS], {
      namespace: 'contact-form/v1',
      methods: ['GET', 'POST'],
      endpoints: [
        { methods: ['GET'], args: [] },
        { methods: ['POST'], args: [] },
      ],
      _links: { self: [{ href: `${t.url}${FORMS}` }] },
    });
    assert.equal(routes[ITEM_ROUTE], {
      namespace: 'contact-form/v1',
      methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
      endpoints: [
        { methods: ['GET'], args: [] },
        { methods: ['POST', 'PUT', 'PATCH'], args: [] },
        { methods: ['DELETE'], args: [] },
      ],
    });
    assert.equal(routes[`${ITEM_ROUTE}/feedback`], {
      namespace: 'contact-form/v1',
      methods: ['POST'],
      endpoints: [{ methods: ['POST'], args: [] }],
    });
    assert.equal(routes[`${ITEM_ROUTE}/refill`], {
      namespace: 'contact-form/v1',
      methods: ['GET'],
      endpoints: [{ methods: ['GET'], args: [] }],
    });
  },
);

second('the namespace index lists only its own routes', async () => {
  const response = await t.request('GET', '/contact-form/v1');
  assert.is(response.status, 200);
  assert.is(response.body.namespace, 'contact-form/v1');
  assert.equal(Object.keys(response.body.routes), [
    '/contact-form/v1',
    FORMS,
    ITEM_ROUTE,
    `${ITEM_ROUTE}/feedback`,
    `${ITEM_ROUTE}/refill`,
  ]);
  assert.equal(response.body._links, { up: [{ href: `${t.url}/` }] });
});

second('posts and pages take ext-disabled as a status; it is not public', async () => {
  const index = await t.request('GET', '/core/v2');
  const writable: string[] = index.body.routes['/core/v2/posts'].endpoints[1].args.status.enum;
  assert.equal(writable, ['publish', 'future', 'draft', 'pending', 'private', 'ext-disabled']);
  const filters: string[] = index.body.routes['/core/v2/pages'].endpoints[0].args.status.items.enum;
  assert.equal(filters.slice(-2), ['ext-disabled', 'any']);
  // Menu items filter by the post list's statuses ("values as for posts" in the interface).
  const menuItemFilters = (await t.request('GET', '/core/v2')).body.routes['/core/v2/menu-items'].endpoints[0].args
    .status.items.enum;
  assert.equal(menuItemFilters.slice(-2), ['ext-disabled', 'any']);
  const menuItems = await t.request('GET', '/core/v2/menu-items?status=ext-disabled', { as: admin });
  assert.is(menuItems.status, 200, JSON.stringify(menuItems.body));

  // No publishing right is needed: a contributor may set it.
  const post = await t.request('POST', '/core/v2/posts', {
    as: contributor,
    body: { title: 'Switched off', status: 'ext-disabled' },
  });
  assert.is(post.status, 201, JSON.stringify(post.body));
  assert.is(post.body.status, 'ext-disabled');
  assert.ok(post.body.date_gmt, 'unlike a draft, its date is fixed');
  const page = await t.request('POST', '/core/v2/pages', {
    as: editor,
    body: { title: 'Off page', status: 'ext-disabled' },
  });
  assert.is(page.status, 201);
  assert.is(page.body.status, 'ext-disabled');

  // Like a draft: the author and editors read it; anonymous readers and subscribers do not.
  assert.is((await t.request('GET', `/core/v2/posts/${post.body.id}`, { as: contributor })).status, 200);
  assert.is((await t.request('GET', `/core/v2/posts/${post.body.id}`, { as: editor })).status, 200);
  assert.equal(errorOf(await t.request('GET', `/core/v2/posts/${post.body.id}`)), {
    status: 401,
    code: 'rest_forbidden',
    message: 'Sorry, you are not allowed to do that.',
  });
  assert.is((await t.request('GET', `/core/v2/posts/${post.body.id}`, { as: subscriber })).status, 403);
  assert.equal((await t.request('GET', '/core/v2/posts')).body, []);

  // As a list filter it needs edit rights.
  const listed = await t.request('GET', '/core/v2/posts?status=ext-disabled', { as: editor });
  assert.equal(
    listed.body.map((p: { id: number }) => p.id),
    [post.body.id],
  );
  const anyStatus = await t.request('GET', '/core/v2/pages?status=any', { as: editor });
  assert.equal(
    anyStatus.body.map((p: { id: number }) => p.id),
    [page.body.id],
  );
  const refused = await t.request('GET', '/core/v2/posts?status=ext-disabled');
  assert.is(refused.status, 400);
  assert.is(refused.body.data.details.status.code, 'rest_forbidden_status');
  assert.is((await t.request('GET', '/core/v2/posts?status=ext-disabled', { as: subscriber })).status, 400);

  // A contributor may not edit someone else's, nor publish it; an editor may.
  assert.is(
    (await t.request('POST', `/core/v2/pages/${page.body.id}`, { as: contributor, body: { title: 'x' } })).status,
    403,
  );
  const publish = await t.request('POST', `/core/v2/posts/${post.body.id}`, {
    as: contributor,
    body: { status: 'publish' },
  });
  assert.equal(errorOf(publish), {
    status: 403,
    code: 'rest_cannot_publish',
    message: 'Sorry, you are not allowed to publish posts in this post type.',
  });
  const back = await t.request('POST', `/core/v2/posts/${post.body.id}`, { as: editor, body: { status: 'draft' } });
  assert.is(back.body.status, 'draft');
});

second(
  'media takes ext-disabled as a writable status and stores it as inherit, as any status but private',
  async () => {
    const writable = (await t.request('GET', '/core/v2')).body.routes['/core/v2/media'].endpoints[1].args.status.enum;
    assert.ok(writable.includes('ext-disabled'));
    const uploaded = await t.request('POST', '/core/v2/media', {
      as: editor,
      raw: { data: Buffer.from('plain text'), type: 'text/plain' },
      headers: { 'content-disposition': 'attachment; filename=note.txt' },
    });
    assert.is(uploaded.status, 201, JSON.stringify(uploaded.body));
    const updated = await t.request('POST', `/core/v2/media/${uploaded.body.id}`, {
      as: editor,
      body: { status: 'ext-disabled' },
    });
    assert.is(updated.status, 200, JSON.stringify(updated.body));
    assert.is(updated.body.status, 'inherit');
  },
);

second('autosaves accept ext-disabled', async () => {
  const post = await t.request('POST', '/core/v2/posts', { as: editor, body: { title: 'Draft', status: 'draft' } });
  const autosave = await t.request('POST', `/core/v2/posts/${post.body.id}/autosaves`, {
    as: editor,
    body: { title: 'Draft 2', status: 'ext-disabled' },
  });
  assert.is(autosave.status, 200, JSON.stringify(autosave.body));
  const bad = await t.request('POST', `/core/v2/posts/${post.body.id}/autosaves`, {
    as: editor,
    body: { status: 'switched-off' },
  });
  assert.is(bad.status, 400);
});

second.run();

// --- the second instance: contact forms ------------------------------------------------------------------------

const forms = suite('second instance: contact forms');
let mailer: ReturnType<typeof createRecordingMailer>;

forms.before.each(async () => {
  mailer = createRecordingMailer();
  t = await startTestSite({ instance: 'second', mailer });
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  contributor = await t.createUser('contributor', 'contributor');
  subscriber = await t.createUser('subscriber', 'subscriber');
});
forms.after.each(async () => t.close());

async function saveForm(body: Record<string, unknown>): Promise<any> {
  const response = await t.request('POST', `${FORMS}?context=save`, { as: editor, body });
  assert.is(response.status, 200, JSON.stringify(response.body));
  return response.body;
}

forms('create without context=save answers the template and stores nothing', async () => {
  const response = await t.request('POST', FORMS, { as: editor, body: {} });
  assert.is(response.status, 200);
  assert.is(response.body.id, null);
  assert.is(response.body.slug, null);
  assert.is(response.body.title, 'Untitled');
  assert.is(response.body.locale, 'en_US');
  assert.equal(response.body.config_errors, []);
  const fields = response.body.properties.form.fields.map((f: { type: string; name: string }) => `${f.type} ${f.name}`);
  assert.equal(fields, [
    'text* your-name',
    'email* your-email',
    'text* your-subject',
    'textarea your-message',
    'submit ',
  ]);
  assert.equal(Object.keys(response.body.properties), ['form', 'mail', 'mail_2', 'messages', 'additional_settings']);
  assert.is(response.body.properties.messages.mail_sent_ok, 'Thank you for your message. It has been sent.');
  assert.equal((await t.request('GET', FORMS, { as: editor })).body, []);
  const dryRun = await t.request('POST', `${FORMS}?context=dry-run`, { as: editor, body: { title: 'Trial' } });
  assert.is(dryRun.body.title, 'Trial');
  assert.equal((await t.request('GET', FORMS, { as: editor })).body, []);
});

forms('create, read, update and delete a form', async () => {
  const created = await saveForm({
    title: 'Contact <b>us</b>',
    locale: 'ja',
    form: '[text* who id:who-field 10/20] [acceptance ok] Fine [/acceptance] [submit]',
    additional_settings: 'demo_mode: on\nflag: off',
  });
  assert.type(created.id, 'number');
  assert.is(created.slug, 'contact-us');
  assert.is(created.title, 'Contact us');
  assert.is(created.locale, 'ja');
  assert.equal(created.config_errors, []);
  const [text, acceptance] = created.properties.form.fields;
  assert.equal(text, {
    type: 'text*',
    basetype: 'text',
    name: 'who',
    options: ['id:who-field', '10/20'],
    raw_values: [],
    labels: [],
    values: [],
    pipes: [],
    content: '',
  });
  assert.is(acceptance.content, 'Fine');
  assert.equal(created.properties.additional_settings, {
    content: 'demo_mode: on\nflag: off',
    settings: [
      ['demo_mode', true],
      ['flag', false],
    ],
  });

  const read = await t.request('GET', `${FORMS}/${created.id}`, { as: editor });
  assert.is(read.status, 200);
  assert.equal(Object.keys(read.body), ['id', 'slug', 'title', 'locale', 'properties']);
  assert.equal(read.body.properties, created.properties);

  // An update without context=save shows the change without storing it.
  const preview = await t.request('PATCH', `${FORMS}/${created.id}`, { as: editor, body: { title: 'Preview' } });
  assert.is(preview.status, 200);
  assert.is(preview.body.title, 'Preview');
  assert.is((await t.request('GET', `${FORMS}/${created.id}`, { as: editor })).body.title, 'Contact us');

  const updated = await t.request('PUT', `${FORMS}/${created.id}?context=save`, {
    as: admin,
    body: {
      title: 'Renamed',
      messages: { mail_sent_ok: 'Got it.', unknown_key: 'x' },
      mail: { recipient: 'not an address', sender: 'Site <site@example.com>', body: 'Hi [who]' },
    },
  });
  assert.is(updated.status, 200, JSON.stringify(updated.body));
  assert.is(updated.body.title, 'Renamed');
  assert.is(updated.body.slug, 'contact-us', 'a saved form keeps its slug');
  assert.is(updated.body.properties.messages.mail_sent_ok, 'Got it.');
  assert.not.ok('unknown_key' in updated.body.properties.messages);
  assert.equal(updated.body.config_errors, {
    'mail.recipient': [
      {
        message: 'Invalid mailbox syntax is used.',
        link: 'https://contactform7.com/configuration-errors/invalid-mailbox-syntax/',
      },
    ],
  });
  assert.is(updated.body.properties.mail.subject, '', 'mail keys not sent are emptied');
  const reread = await t.request('GET', `${FORMS}/${created.id}`, { as: editor });
  assert.is(reread.body.title, 'Renamed');
  assert.is(reread.body.properties.mail.body, 'Hi [who]');

  const deleted = await t.request('DELETE', `${FORMS}/${created.id}`, { as: editor });
  assert.equal(deleted.body, { deleted: true });
  assert.equal(errorOf(await t.request('GET', `${FORMS}/${created.id}`, { as: editor })), {
    status: 404,
    code: 'wpcf7_not_found',
    message: 'The requested contact form was not found.',
  });
  assert.equal(errorOf(await t.request('DELETE', `${FORMS}/${created.id}`, { as: editor })).status, 404);
  // Its slug is free again.
  assert.is((await saveForm({ title: 'Contact us' })).slug, 'contact-us');
});

forms('slugs are unique among forms; ids come from the content sequence', async () => {
  const post = await t.request('POST', '/core/v2/posts', { as: editor, body: { title: 'A post' } });
  const one = await saveForm({ title: 'Same' });
  const two = await saveForm({ title: 'Same' });
  const page = await t.request('POST', '/core/v2/pages', { as: editor, body: { title: 'A page' } });
  assert.is(one.slug, 'same');
  assert.is(two.slug, 'same-2');
  assert.ok(
    post.body.id < one.id && one.id < two.id && two.id < page.body.id,
    `${post.body.id} ${one.id} ${two.id} ${page.body.id}`,
  );
  assert.is(
    (await t.request('GET', `/core/v2/posts/${one.id}`, { as: editor })).status,
    404,
    'a form is not a post of the content API',
  );
});

forms(
  'permissions: list needs edit_posts, everything else publish_pages; always 403; permission before existence',
  async () => {
    const form = await saveForm({ title: 'F' });
    const list = (as: TestUser | null) => t.request('GET', FORMS, { as });
    assert.is((await list(contributor)).status, 200);
    assert.equal(errorOf(await list(subscriber)), {
      status: 403,
      code: 'wpcf7_forbidden',
      message: 'You are not allowed to access contact forms.',
    });
    assert.equal(errorOf(await list(null)), {
      status: 403,
      code: 'wpcf7_forbidden',
      message: 'You are not allowed to access contact forms.',
    });
    const item = 'You are not allowed to access the requested contact form.';
    for (const as of [contributor, subscriber, null]) {
      assert.equal(errorOf(await t.request('GET', `${FORMS}/${form.id}`, { as })), {
        status: 403,
        code: 'wpcf7_forbidden',
        message: item,
      });
      assert.equal(errorOf(await t.request('POST', `${FORMS}/${form.id}?context=save`, { as, body: { title: 'x' } })), {
        status: 403,
        code: 'wpcf7_forbidden',
        message: item,
      });
      assert.equal(errorOf(await t.request('DELETE', `${FORMS}/${form.id}`, { as })), {
        status: 403,
        code: 'wpcf7_forbidden',
        message: item,
      });
      assert.equal(
        errorOf(await t.request('GET', `${FORMS}/999999`, { as })).status,
        403,
        'unknown ids are refused before they are looked up',
      );
      assert.equal(errorOf(await t.request('POST', `${FORMS}?context=save`, { as, body: {} })), {
        status: 403,
        code: 'wpcf7_forbidden',
        message: 'You are not allowed to create a contact form.',
      });
    }
    assert.is((await t.request('GET', `${FORMS}/999999`, { as: editor })).body.code, 'wpcf7_not_found');
    assert.is((await t.request('GET', `${FORMS}/${form.id}`, { as: admin })).status, 200);
    assert.is((await t.request('GET', FORMS, { as: editor })).body.length, 1);
  },
);

forms('create refuses an id; unknown methods are not routed', async () => {
  const response = await t.request('POST', `${FORMS}?context=save`, { as: editor, body: { id: 5 } });
  assert.equal(errorOf(response), {
    status: 400,
    code: 'wpcf7_post_exists',
    message: 'Cannot create existing contact form.',
  });
  assert.is((await t.request('DELETE', FORMS, { as: editor })).body.code, 'rest_no_route');
  assert.is((await t.request('GET', `${FORMS}/abc`, { as: editor })).body.code, 'rest_no_route');
  assert.is((await t.request('GET', `${FORMS}/1/feedback`)).body.code, 'rest_no_route');
});

forms('the list: all forms by id, per_page, offset, order, orderby and search', async () => {
  const b = await saveForm({ title: 'Bravo' });
  const a = await saveForm({ title: 'Alpha', form: '[text needle-field]' });
  const c = await saveForm({ title: 'Charlie' });
  const ids = async (query: string) =>
    ((await t.request('GET', `${FORMS}${query}`, { as: contributor })).body as { id: number }[]).map((f) => f.id);
  const listed = await t.request('GET', FORMS, { as: contributor });
  assert.equal(listed.body[0], { id: b.id, slug: 'bravo', title: 'Bravo', locale: 'en_US' });
  assert.is(listed.headers.get('x-wp-total'), null, 'no pagination headers');
  assert.equal(await ids(''), [b.id, a.id, c.id]);
  assert.equal(await ids('?order=desc'), [c.id, a.id, b.id]);
  assert.equal(await ids('?orderby=title'), [a.id, b.id, c.id]);
  assert.equal(await ids('?per_page=2'), [b.id, a.id]);
  assert.equal(await ids('?per_page=2&offset=1'), [a.id, c.id]);
  assert.equal(
    await ids('?offset=1'),
    [b.id, a.id, c.id],
    'without a page size every form is listed and the offset ignored',
  );
  assert.equal(await ids('?search=needle'), [a.id]);
  assert.equal(await ids('?search=charlie'), [c.id]);
  // Page sizes and offsets past JavaScript's exact integers (PHP's reach further) list as the largest ones do.
  assert.equal(await ids('?per_page=9007199254740994'), [b.id, a.id, c.id]);
  assert.equal(await ids('?per_page=-9223372036854776000'), [b.id, a.id, c.id]);
  assert.equal(await ids('?per_page=2&offset=9007199254740994'), []);
});

forms('feedback: 415 unless multipart, 404 for an unknown form', async () => {
  const form = await saveForm({ title: 'F' });
  const json = await t.request('POST', `${FORMS}/${form.id}/feedback`, { body: { 'your-name': 'x' } });
  assert.equal(errorOf(json), {
    status: 415,
    code: 'wpcf7_unsupported_media_type',
    message: 'The request payload format is not supported.',
  });
  const urlencoded = await t.request('POST', `${FORMS}/${form.id}/feedback`, { form: { a: 'b' } });
  assert.is(urlencoded.status, 415);
  const unknown = await t.request('POST', `${FORMS}/999999/feedback`, {
    raw: multipart([['_wpcf7_unit_tag', 'wpcf7-f1-o1']]),
  });
  assert.equal(errorOf(unknown), {
    status: 404,
    code: 'wpcf7_not_found',
    message: 'The requested contact form was not found.',
  });
});

forms('feedback: validation of the basic tags, 200 with invalid_fields', async () => {
  const template = [
    '[text* name id:name-input minlength:2]',
    '[email* email]',
    '[url site]',
    '[tel phone]',
    '[number* count min:1 max:5]',
    '[textarea note 10x2/5]',
    '[select* colour "red" "blue"]',
    '[checkbox* pets "cat" "dog"]',
    '[radio size "S" "M"]',
    '[submit]',
  ].join('\n');
  const form = await saveForm({ title: 'Survey', form: template });
  const send = (fields: [string, string][]) =>
    t.request('POST', `${FORMS}/${form.id}/feedback`, {
      raw: multipart([['_wpcf7_unit_tag', 'wpcf7-f9-o1'], ...fields]),
      headers: { 'user-agent': 'test-browser/1.0' },
    });

  const bad = await send([
    ['name', 'x'],
    ['email', 'not-mail'],
    ['site', 'example.com'],
    ['phone', 'call me'],
    ['count', '9'],
    ['note', 'too long'],
  ]);
  assert.is(bad.status, 200);
  assert.equal(Object.keys(bad.body), [
    'contact_form_id',
    'status',
    'message',
    'invalid_fields',
    'posted_data_hash',
    'into',
  ]);
  assert.is(bad.body.contact_form_id, form.id);
  assert.is(bad.body.status, 'validation_failed');
  assert.is(bad.body.message, 'One or more fields have an error. Please check and try again.');
  assert.is(bad.body.posted_data_hash, '');
  assert.is(bad.body.into, '#wpcf7-f9-o1');
  assert.equal(bad.body.invalid_fields, [
    {
      field: 'name',
      message: 'This field has a too short input.',
      idref: 'name-input',
      error_id: 'wpcf7-f9-o1-ve-name',
    },
    { field: 'email', message: 'Please enter an email address.', idref: null, error_id: 'wpcf7-f9-o1-ve-email' },
    { field: 'site', message: 'Please enter a URL.', idref: null, error_id: 'wpcf7-f9-o1-ve-site' },
    { field: 'phone', message: 'Please enter a telephone number.', idref: null, error_id: 'wpcf7-f9-o1-ve-phone' },
    { field: 'count', message: 'This field has a too large number.', idref: null, error_id: 'wpcf7-f9-o1-ve-count' },
    { field: 'note', message: 'This field has a too long input.', idref: null, error_id: 'wpcf7-f9-o1-ve-note' },
    { field: 'colour', message: 'Please fill out this field.', idref: null, error_id: 'wpcf7-f9-o1-ve-colour' },
    { field: 'pets', message: 'Please fill out this field.', idref: null, error_id: 'wpcf7-f9-o1-ve-pets' },
  ]);
  const few = await send([
    ['name', 'Ann'],
    ['email', 'ann@example.com'],
    ['count', 'zero'],
    ['colour', 'red'],
    ['pets[]', 'cat'],
  ]);
  assert.equal(
    few.body.invalid_fields.map((f: { field: string; message: string }) => `${f.field}: ${f.message}`),
    ['count: Please enter a number.'],
  );
  const small = await send([
    ['name', 'Ann'],
    ['email', 'ann@example.com'],
    ['count', '0'],
    ['colour', 'red'],
    ['pets[]', 'cat'],
  ]);
  assert.equal(
    small.body.invalid_fields.map((f: { message: string }) => f.message),
    ['This field has a too small number.'],
  );

  const good = await send([
    ['name', 'Ann'],
    ['email', 'ann@example.com'],
    ['site', 'https://ann.example'],
    ['phone', '+1 (555) 010-2030'],
    ['count', '3'],
    ['colour', 'blue'],
    ['pets[]', 'cat'],
    ['pets[]', 'dog'],
    ['size', 'M'],
  ]);
  assert.is(good.body.status, 'mail_sent', JSON.stringify(good.body));
  assert.is(good.body.message, 'Thank you for your message. It has been sent.');
  assert.equal(good.body.invalid_fields, []);
  assert.match(good.body.posted_data_hash, /^[0-9a-f]{32}$/);
});

forms('feedback: mail_sent hands the composed mail to the Mailer and records the submission', async () => {
  const form = await saveForm({
    title: 'Mail me',
    form: '[text* your-name] [email* your-email] [checkbox topics "Sales|sales@example.com" "Help|help@example.com"] [submit]',
    mail: {
      subject: 'From [your-name]',
      sender: '[_site_title] <site@example.com>',
      recipient: 'owner@example.com',
      body: 'Topics: [topics]\n[unknown-tag]',
      additional_headers: 'Reply-To: [your-email]',
    },
  });
  const response = await t.request('POST', `${FORMS}/${form.id}/feedback`, {
    raw: multipart([
      ['_wpcf7', String(form.id)],
      ['_wpcf7_unit_tag', 'wpcf7-f1-p2-o1'],
      ['your-name', 'Ann'],
      ['your-email', 'ann@example.com'],
      ['topics[]', 'Sales'],
      ['topics[]', 'Help'],
    ]),
    headers: { 'user-agent': 'test-browser/1.0' },
  });
  assert.is(response.body.status, 'mail_sent');
  assert.equal(mailer.sent, [
    {
      to: 'owner@example.com',
      from: 'Test site <site@example.com>',
      subject: 'From Ann',
      body: 'Topics: sales@example.com, help@example.com\n[unknown-tag]',
      additionalHeaders: 'Reply-To: ann@example.com',
      html: false,
    },
  ] satisfies MailMessage[]);
  const events = (await t.site.store.readAll()).filter((e) => e.type === 'ContactFormSubmitted');
  assert.is(events.length, 1);
  const data = events[0]!.data as Record<string, unknown>;
  assert.is(data.formId, form.id);
  assert.is(data.status, 'mail_sent');
  assert.equal(data.postedData, { 'your-name': 'Ann', 'your-email': 'ann@example.com', topics: ['Sales', 'Help'] });
  assert.is(events[0]!.streamId, `contact-form-submission-${data.submission}`);
});

forms('feedback: mail_failed, acceptance_missing, spam, demo mode, subscribers only', async () => {
  const post = (id: number, fields: [string, string][], options: { userAgent?: string; as?: TestUser } = {}) =>
    t.request('POST', `${FORMS}/${id}/feedback`, {
      raw: multipart([['_wpcf7_unit_tag', 'wpcf7-f1-o1'], ...fields]),
      headers: { 'user-agent': options.userAgent ?? 'test-browser/1.0' },
      as: options.as,
    });

  const plain = await saveForm({ title: 'Plain', form: '[text who]' });
  mailer.send = async () => {
    throw new Error('mail server down');
  };
  const failed = await post(plain.id, [['who', 'x']]);
  assert.equal(
    [failed.status, failed.body.status, failed.body.message],
    [200, 'mail_failed', 'There was an error trying to send your message. Please try again later.'],
  );
  assert.match(failed.body.posted_data_hash, /^[0-9a-f]{32}$/);

  const spam = await post(plain.id, [['who', 'x']], { userAgent: 'x' });
  assert.equal(
    [spam.body.status, spam.body.message, spam.body.posted_data_hash],
    ['spam', 'There was an error trying to send your message. Please try again later.', ''],
  );

  const terms = await saveForm({
    title: 'Terms',
    form: '[acceptance agree] I agree [/acceptance] [acceptance newsletter optional] News [/acceptance]',
  });
  const missing = await post(terms.id, []);
  assert.equal(
    [missing.body.status, missing.body.message, missing.body.invalid_fields],
    ['acceptance_missing', 'You must accept the terms and conditions before sending your message.', []],
  );
  mailer.send = async () => undefined;
  assert.is((await post(terms.id, [['agree', '1']])).body.status, 'mail_sent');

  const demo = await saveForm({ title: 'Demo', form: '[text who]', additional_settings: 'demo_mode: on' });
  const sent = mailer.sent.length;
  const demoAnswer = await post(demo.id, [['who', 'x']]);
  assert.equal([demoAnswer.body.status, demoAnswer.body.demo_mode], ['mail_sent', true]);
  assert.is(mailer.sent.length, sent, 'demo mode mails nothing');

  const members = await saveForm({
    title: 'Members',
    form: '[text who]',
    additional_settings: 'subscribers_only: true',
  });
  const anonymous = await post(members.id, [['who', 'x']]);
  assert.equal(
    [anonymous.status, anonymous.body.status, anonymous.body.message],
    [200, 'error', 'This contact form is available only for logged in users.'],
  );
  assert.is((await post(members.id, [['who', 'x']], { as: subscriber })).body.status, 'mail_sent');
});

forms('feedback: a missing unit tag is answered (5.6 has no unit-tag check); refill answers [] or 404', async () => {
  const form = await saveForm({ title: 'F', form: '[text who]' });
  const noTag = await t.request('POST', `${FORMS}/${form.id}/feedback`, {
    raw: multipart([['who', 'x']]),
    headers: { 'user-agent': 'test-browser/1.0' },
  });
  assert.is(noTag.status, 200);
  assert.is(noTag.body.into, '#');
  const oddTag = await t.request('POST', `${FORMS}/${form.id}/feedback`, {
    raw: multipart([
      ['_wpcf7_unit_tag', 'wpcf7<f1>o1'],
      ['who', 'x'],
    ]),
    headers: { 'user-agent': 'test-browser/1.0' },
  });
  assert.is(oddTag.body.into, '#wpcf7f1o1');

  const refill = await t.request('GET', `${FORMS}/${form.id}/refill`);
  assert.equal([refill.status, refill.body], [200, []]);
  assert.equal(errorOf(await t.request('GET', `${FORMS}/999999/refill`)), {
    status: 404,
    code: 'wpcf7_not_found',
    message: 'The requested contact form was not found.',
  });
});

forms.run();
