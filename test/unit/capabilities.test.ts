/**
 * The role tables and the meta-capability mapping, checked against what WordPress 6.1 reports and decides
 * (the capability lists are the reference's `GET /wp/v2/users/me?context=edit` for each role).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  ROLE_CAPABILITIES,
  canDeleteItem,
  canEditItem,
  canReadItem,
  canSaveUnfilteredHtml,
  hasCap,
  postTypeCaps,
  requiredCaps,
  userCan,
} from '../../src/access/capabilities';
import type { Actor, OwnedItem, Role } from '../../src/access/capabilities';

const test = suite('capabilities');
const posts = postTypeCaps('posts');
const pages = postTypeCaps('pages');

const as = (role: Role, id = 10): Actor => ({ id, roles: [role] });
const item = (author: number, status: string, trashedFrom: string | null = null): OwnedItem => ({
  author,
  status,
  trashedFrom,
});
const OWN = 10;
const OTHER = 99;

test('each role holds exactly WordPress 6.1 single-site capabilities, in its order', () => {
  const expected: Record<Role, string> = {
    administrator:
      'switch_themes edit_themes activate_plugins edit_plugins edit_users edit_files manage_options moderate_comments manage_categories manage_links upload_files import unfiltered_html edit_posts edit_others_posts edit_published_posts publish_posts edit_pages read level_10 level_9 level_8 level_7 level_6 level_5 level_4 level_3 level_2 level_1 level_0 edit_others_pages edit_published_pages publish_pages delete_pages delete_others_pages delete_published_pages delete_posts delete_others_posts delete_published_posts delete_private_posts edit_private_posts read_private_posts delete_private_pages edit_private_pages read_private_pages delete_users create_users unfiltered_upload edit_dashboard update_plugins delete_plugins install_plugins update_themes install_themes update_core list_users remove_users promote_users edit_theme_options delete_themes export',
    editor:
      'moderate_comments manage_categories manage_links upload_files unfiltered_html edit_posts edit_others_posts edit_published_posts publish_posts edit_pages read level_7 level_6 level_5 level_4 level_3 level_2 level_1 level_0 edit_others_pages edit_published_pages publish_pages delete_pages delete_others_pages delete_published_pages delete_posts delete_others_posts delete_published_posts delete_private_posts edit_private_posts read_private_posts delete_private_pages edit_private_pages read_private_pages',
    author:
      'upload_files edit_posts edit_published_posts publish_posts read level_2 level_1 level_0 delete_posts delete_published_posts',
    contributor: 'edit_posts read level_1 level_0 delete_posts',
    subscriber: 'read level_0',
  };
  for (const role of Object.keys(expected) as Role[])
    assert.equal([...ROLE_CAPABILITIES[role]].join(' '), expected[role], role);
});

test('meta capabilities are not primitives of any role', () => {
  for (const role of Object.keys(ROLE_CAPABILITIES) as Role[]) {
    for (const meta of ['edit_post', 'read_post', 'delete_post', 'publish_post', 'add_users', 'customize'])
      assert.not.ok(hasCap(as(role), meta), `${role} ${meta}`);
  }
});

test('anonymous callers hold nothing, not even read', () => {
  assert.not.ok(hasCap(null, 'read'));
  assert.not.ok(canEditItem(null, posts, item(0, 'draft')));
  assert.not.ok(userCan(null, 'read_post', posts, item(OWN, 'publish')));
  assert.ok(canReadItem(null, posts, item(OWN, 'publish')), 'published items are public in the API');
});

test('only editors and administrators save unfiltered HTML', () => {
  assert.equal(
    (['administrator', 'editor', 'author', 'contributor', 'subscriber'] as Role[]).map((role) =>
      canSaveUnfilteredHtml(as(role)),
    ),
    [true, true, false, false, false],
  );
  assert.not.ok(canSaveUnfilteredHtml(null));
});

test('edit_post on an own item: published or scheduled needs edit_published, any other status (private too) edit_posts', () => {
  assert.equal(requiredCaps(as('author'), 'edit_post', posts, item(OWN, 'publish')), ['edit_published_posts']);
  assert.equal(requiredCaps(as('author'), 'edit_post', posts, item(OWN, 'future')), ['edit_published_posts']);
  assert.equal(requiredCaps(as('author'), 'edit_post', posts, item(OWN, 'private')), ['edit_posts']);
  assert.equal(requiredCaps(as('author'), 'edit_post', posts, item(OWN, 'pending')), ['edit_posts']);
  assert.ok(canEditItem(as('author'), posts, item(OWN, 'private')), 'an author edits their own private post');
  assert.ok(canEditItem(as('contributor'), posts, item(OWN, 'private')), 'so does a contributor');
  assert.not.ok(canEditItem(as('contributor'), posts, item(OWN, 'publish')));
  assert.ok(canEditItem(as('contributor'), posts, item(OWN, 'draft')));
  assert.not.ok(canEditItem(as('subscriber'), posts, item(OWN, 'draft')));
});

test('edit_post on a trashed own item depends on the status it was trashed from', () => {
  assert.equal(requiredCaps(as('contributor'), 'edit_post', posts, item(OWN, 'trash', 'publish')), [
    'edit_published_posts',
  ]);
  assert.equal(requiredCaps(as('contributor'), 'edit_post', posts, item(OWN, 'trash', 'future')), [
    'edit_published_posts',
  ]);
  assert.equal(requiredCaps(as('contributor'), 'edit_post', posts, item(OWN, 'trash', 'private')), ['edit_posts']);
  assert.equal(requiredCaps(as('contributor'), 'edit_post', posts, item(OWN, 'trash', null)), ['edit_posts']);
  assert.not.ok(canDeleteItem(as('contributor'), posts, item(OWN, 'trash', 'publish')));
  assert.ok(canDeleteItem(as('contributor'), posts, item(OWN, 'trash', 'draft')));
});

test("edit_post and delete_post on someone else's item", () => {
  assert.equal(requiredCaps(as('editor'), 'edit_post', posts, item(OTHER, 'draft')), ['edit_others_posts']);
  assert.equal(requiredCaps(as('editor'), 'edit_post', posts, item(OTHER, 'publish')), [
    'edit_others_posts',
    'edit_published_posts',
  ]);
  assert.equal(requiredCaps(as('editor'), 'edit_post', posts, item(OTHER, 'private')), [
    'edit_others_posts',
    'edit_private_posts',
  ]);
  assert.equal(requiredCaps(as('editor'), 'edit_post', posts, item(OTHER, 'trash', 'private')), ['edit_others_posts']);
  assert.equal(requiredCaps(as('editor'), 'delete_post', pages, item(OTHER, 'private')), [
    'delete_others_pages',
    'delete_private_pages',
  ]);
  assert.not.ok(canEditItem(as('author'), posts, item(OTHER, 'draft')));
  assert.ok(canEditItem(as('editor'), posts, item(OTHER, 'private')));
  assert.ok(canDeleteItem(as('administrator'), pages, item(OTHER, 'publish')));
});

test('an item without an author belongs to nobody, not to user 0', () => {
  assert.equal(requiredCaps({ id: 0, roles: ['author'] }, 'edit_post', posts, item(0, 'draft')), ['edit_others_posts']);
});

test('read_post: own items in any status need read; others need read_private (private) or edit_post', () => {
  assert.equal(requiredCaps(as('subscriber'), 'read_post', posts, item(OWN, 'draft')), ['read']);
  assert.ok(canReadItem(as('subscriber'), posts, item(OWN, 'draft')));
  assert.ok(canReadItem(as('contributor'), posts, item(OWN, 'trash', 'publish')), 'a trashed own post stays readable');
  assert.ok(
    canReadItem(as('author'), pages, item(OWN, 'draft')),
    'an author reads their own draft page, which they cannot edit',
  );
  assert.not.ok(canEditItem(as('author'), pages, item(OWN, 'draft')));
  assert.equal(requiredCaps(as('author'), 'read_post', posts, item(OTHER, 'private')), ['read_private_posts']);
  assert.not.ok(canReadItem(as('author'), posts, item(OTHER, 'private')));
  assert.ok(canReadItem(as('editor'), posts, item(OTHER, 'private')));
  assert.equal(requiredCaps(as('author'), 'read_post', posts, item(OTHER, 'future')), [
    'edit_others_posts',
    'edit_published_posts',
  ]);
  assert.not.ok(canReadItem(as('author'), posts, item(OTHER, 'pending')));
  assert.ok(canReadItem(as('editor'), posts, item(OTHER, 'trash', 'publish')));
});

test("publish_post maps to the type's publish capability", () => {
  assert.equal(requiredCaps(as('author'), 'publish_post', pages, item(OWN, 'draft')), ['publish_pages']);
  assert.ok(userCan(as('author'), 'publish_post', posts, item(OWN, 'draft')));
  assert.not.ok(userCan(as('author'), 'publish_post', pages, item(OWN, 'draft')));
  assert.not.ok(userCan(as('contributor'), 'publish_post', posts, item(OWN, 'draft')));
});

test.run();
