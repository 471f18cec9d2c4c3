/** A live WordPress item's past as replay steps: order, times, authors, and the cases where dates mislead. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { floatingDate, parentsFirst, timelineOf } from '../../src/import/wordpress/timeline';
import { WordPressImportError } from '../../src/import/wordpress/source';
import type { WpPost, WpRevision } from '../../src/import/wordpress/source';

const test = suite('wordpress import timeline');

const post = (fields: Partial<WpPost> = {}): WpPost => ({
  id: 5,
  type: 'post',
  date: '2026-01-01T10:00:00',
  date_gmt: '2026-01-01T10:00:00',
  modified_gmt: '2026-01-03T10:00:00',
  slug: 'p',
  status: 'publish',
  password: '',
  title: { raw: 'T' },
  content: { raw: 'C' },
  excerpt: { raw: '' },
  author: 1,
  featured_media: 0,
  comment_status: 'open',
  ping_status: 'open',
  template: '',
  ...fields,
});

const revision = (id: number, date: string, author = 1, slug = `5-revision-v1`): WpRevision => ({
  id,
  author,
  parent: 5,
  date_gmt: date,
  slug,
  title: { raw: `T${id}` },
  content: { raw: `C${id}` },
  excerpt: { raw: '' },
});

const shape = (steps: ReturnType<typeof timelineOf>) =>
  steps.map((step) => [step.kind, new Date(step.at).toISOString().slice(0, 19), step.author, step.sourceId]);

test('revisions oldest first whatever the answer order, autosaves from either list once, the last update at modified', () => {
  const autosave = revision(9, '2026-01-04T00:00:00', 3, '5-autosave-v1');
  const steps = timelineOf(
    post(),
    [revision(8, '2026-01-03T10:00:00', 2), autosave, revision(7, '2026-01-02T10:00:00')],
    [autosave],
  );
  assert.equal(shape(steps), [
    ['create', '2026-01-01T10:00:00', 1, 'post-5'],
    ['revision', '2026-01-02T10:00:00', 1, 'revision-7'],
    ['revision', '2026-01-03T10:00:00', 2, 'revision-8'],
    ['final', '2026-01-03T10:00:00', 2, 'post-5-final'],
    ['autosave', '2026-01-04T00:00:00', 3, 'autosave-9'],
  ]);
  // The creation has the first revision's text: the text before the first update is kept nowhere.
  assert.equal(steps[0]!.kind === 'create' && steps[0]!.text, { title: 'T7', content: 'C7', excerpt: '' });
});

test('an item dated after its revisions is created at the first of them; published later, it is last updated at its date', () => {
  const steps = timelineOf(
    post({ date_gmt: '2026-02-01T00:00:00', modified_gmt: '2026-01-02T10:00:00' }),
    [revision(7, '2026-01-02T10:00:00')],
    [],
  );
  assert.equal(
    shape(steps).map((step) => step.slice(0, 2)),
    [
      ['create', '2026-01-02T10:00:00'],
      ['revision', '2026-01-02T10:00:00'],
      ['final', '2026-02-01T00:00:00'],
    ],
  );
});

test('a floating draft is recognised by its date_gmt equal to modified; its creation is not at that date', () => {
  const draft = post({ status: 'draft', date_gmt: '2026-01-03T10:00:00' });
  assert.ok(floatingDate(draft));
  assert.not.ok(floatingDate(post({ status: 'draft' })));
  assert.not.ok(floatingDate(post({ date_gmt: '2026-01-03T10:00:00' })));
  assert.equal(shape(timelineOf(draft, [revision(7, '2026-01-02T00:00:00')], []))[0]!.slice(0, 2), [
    'create',
    '2026-01-02T00:00:00',
  ]);
});

test('a revision of another item is refused, naming both', () => {
  assert.throws(
    () => timelineOf(post(), [{ ...revision(7, '2026-01-02T10:00:00'), parent: 6 }], []),
    (error: Error) => error instanceof WordPressImportError && /post 5: its revision 7 names 6/.test(error.message),
  );
});

test('parents first; a loop or a missing parent is named', () => {
  const items = [
    { id: 3, parent: 2 },
    { id: 2, parent: 1 },
    { id: 1, parent: 0 },
  ];
  const of = (list: typeof items) =>
    parentsFirst(
      list,
      (item) => item.id,
      (item) => item.parent,
      (item) => `page ${item.id}`,
    );
  assert.equal(
    of(items).map((item) => item.id),
    [1, 2, 3],
  );
  assert.throws(
    () =>
      of([
        { id: 1, parent: 2 },
        { id: 2, parent: 1 },
      ]),
    /page 1: its parents loop \(1 -> 2 -> 1\)/,
  );
  assert.throws(() => of([{ id: 1, parent: 1 }]), /page 1: its parents loop \(1 -> 1\)/);
  assert.throws(() => of([{ id: 1, parent: 9 }]), /page 1: its parent 9 is not among/);
});

test.run();
