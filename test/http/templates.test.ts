/**
 * /core/v2/templates, /templates/lookup and /templates/{id} on a site without a block theme: no templates, the
 * lookup's answer when nothing is found (what WordPress 6.1 gives a classic theme), and the refusals of those
 * without edit_theme_options.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestSite } from '../support/testSite';
import type { TestSite, TestUser } from '../support/testSite';

const test = suite('templates');
let t: TestSite;
let admin: TestUser;
let editor: TestUser;
let author: TestUser;

test.before(async () => {
  t = await startTestSite();
  admin = await t.createUser('admin', 'administrator');
  editor = await t.createUser('editor', 'editor');
  author = await t.createUser('author', 'author');
});
test.after(async () => t.close());

test('the lookup finds nothing: every field of the template empty, links to the root, the templates and their type', async () => {
  for (const slug of ['front-page', 'single-post-hello-world', 'page', 'index']) {
    const { status, body } = await t.request('GET', `/core/v2/templates/lookup?slug=${slug}&_locale=user`, {
      as: admin,
    });
    assert.is(status, 200, slug);
    assert.equal(body, {
      id: null,
      theme: null,
      content: { raw: null },
      slug: null,
      source: null,
      origin: null,
      type: null,
      description: null,
      title: { raw: null, rendered: null },
      status: null,
      wp_id: 0,
      has_theme_file: false,
      author: 0,
      _links: {
        self: [{ href: `${t.url}/` }],
        collection: [{ href: `${t.url}/core/v2/templates` }],
        about: [{ href: `${t.url}/core/v2/types/wp_template` }],
        'wp:action-publish': [{ href: `${t.url}/` }],
        'wp:action-unfiltered-html': [{ href: `${t.url}/` }],
        curies: [{ name: 'wp', href: 'https://api.w.org/{rel}', templated: true }],
      },
    });
  }
  const wordpress = await t.request(
    'GET',
    '/wp-json/wp/v2/templates/lookup?slug=front-page&is_custom=false&template_prefix=front',
    { as: admin },
  );
  assert.equal(
    [wordpress.body._links.self, wordpress.body._links.collection],
    [[{ href: `${t.url}/wp-json/` }], [{ href: `${t.url}/wp-json/wp/v2/templates` }]],
  );
});

test('only theme managers: author and editor 403, anonymous 401, on every template route', async () => {
  for (const path of [
    '/core/v2/templates',
    '/core/v2/templates/lookup?slug=front-page',
    '/core/v2/templates/palimpsest//home',
  ]) {
    for (const [as, status] of [
      [null, 401],
      [author, 403],
      [editor, 403],
    ] as const) {
      const { body } = await t.request('GET', path, { as });
      assert.equal(
        body,
        {
          code: 'rest_cannot_manage_templates',
          message: 'Sorry, you are not allowed to access the templates on this site.',
          data: { status },
        },
        path,
      );
    }
  }
  const options = await t.request('OPTIONS', '/core/v2/templates', { as: author });
  assert.equal([options.status, options.headers.get('allow')], [200, null]);
  // Templates cannot be made here: the administrator may only read them.
  assert.is((await t.request('OPTIONS', '/core/v2/templates', { as: admin })).headers.get('allow'), 'GET');
});

test('no templates, none found by id; bad lookups are refused as WordPress refuses them', async () => {
  const list = await t.request('GET', '/core/v2/templates?context=edit&post_type=post&wp_id=3', { as: admin });
  assert.equal([list.status, list.body], [200, []]);
  for (const id of ['palimpsest//home', 'palimpsest/home', 'other-theme//single']) {
    const missing = await t.request('GET', `/core/v2/templates/${id}`, { as: admin });
    assert.equal(
      [missing.status, missing.body.code, missing.body.message],
      [404, 'rest_template_not_found', 'No templates exist with that id.'],
      id,
    );
  }
  const noSlug = await t.request('GET', '/core/v2/templates/lookup', { as: admin });
  assert.equal([noSlug.status, noSlug.body.code], [400, 'rest_missing_callback_param']);
  const badCustom = await t.request('GET', '/core/v2/templates/lookup?slug=x&is_custom=perhaps', { as: admin });
  assert.equal([badCustom.status, badCustom.body.code], [400, 'rest_invalid_param']);
  const badContext = await t.request('GET', '/core/v2/templates?context=banana', { as: admin });
  assert.equal([badContext.status, badContext.body.code], [400, 'rest_invalid_param']);
  const hostile = await t.request(
    'GET',
    `/core/v2/templates/lookup?slug=${encodeURIComponent('<script>x</script>'.repeat(200))}`,
    { as: admin },
  );
  assert.equal([hostile.status, hostile.body.slug], [200, null]);
});

test.run();
