/** The attachment decider and the media projection, as pure functions. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { mediaDecider } from '../../src/resources/media/decider';
import type { MediaCommand, MediaState } from '../../src/resources/media/decider';
import type { MediaEvent } from '../../src/resources/media/events';
import media from '../../projections/media';
import type { RecordedEvent } from '../../src/ports/eventStore';
import { rejectsWith } from '../support/domainErrors';

const test = suite('media decider and projection');
const ctx = { actorId: 3, now: Date.parse('2024-05-01T12:00:00Z'), timezone: 'Europe/Berlin' };
const details = {
  file: '2024/05/a.jpg',
  filesize: 10,
  width: 400,
  height: 300,
  sizes: { thumbnail: { file: 'a-150x150.jpg', width: 150, height: 150, filesize: 5, mime_type: 'image/jpeg' } },
};
const fold = (events: MediaEvent[], state = mediaDecider.initialState()): MediaState =>
  events.reduce(mediaDecider.evolve, state);
const create: MediaCommand = {
  kind: 'create',
  id: 7,
  input: { title: 'a' },
  slug: 'a',
  mimeType: 'image/jpeg',
  details,
  ...ctx,
};

test('create: WordPress defaults, site-local and UTC dates, inherit status', () => {
  const [event] = mediaDecider.decide(create, mediaDecider.initialState());
  assert.is(event!.type, 'AttachmentCreated');
  const attachment = (event!.data as unknown as { attachment: Record<string, unknown> }).attachment;
  assert.equal(
    [attachment.status, attachment.comment_status, attachment.ping_status, attachment.author, attachment.post],
    ['inherit', 'open', 'closed', 3, 0],
  );
  assert.equal([attachment.date, attachment.date_gmt], ['2024-05-01T14:00:00', '2024-05-01T12:00:00']);
});

test('create twice is refused; update of a missing item is 404', () => {
  const state = fold(mediaDecider.decide(create, mediaDecider.initialState()));
  rejectsWith(() => mediaDecider.decide(create, state), { code: 'already_exists', subject: 'attachment', by: 'id' });
  rejectsWith(
    () => mediaDecider.decide({ kind: 'update', id: 7, input: {}, slug: 'a', ...ctx }, mediaDecider.initialState()),
    { code: 'not_found', subject: 'attachment' },
  );
});

test('update: only changed fields; a status other than private becomes inherit', () => {
  const state = fold(mediaDecider.decide(create, mediaDecider.initialState()));
  const later = { ...ctx, now: ctx.now + 60_000 };
  const [updated] = mediaDecider.decide(
    { kind: 'update', id: 7, input: { alt_text: 'Alt', status: 'publish' }, slug: 'a', ...later },
    state,
  );
  assert.equal(Object.keys((updated!.data as { changes: object }).changes).sort(), [
    'alt_text',
    'modified',
    'modified_gmt',
  ]);
  const [made] = mediaDecider.decide(
    { kind: 'update', id: 7, input: { status: 'private' }, slug: 'a', ...later },
    state,
  );
  assert.is((made!.data as { changes: { status: string } }).changes.status, 'private');
});

test('delete names every file it used', () => {
  const state = fold(mediaDecider.decide(create, mediaDecider.initialState()));
  const [deleted] = mediaDecider.decide({ kind: 'delete', id: 7 }, state);
  assert.equal(deleted!.data, { id: 7, files: ['2024/05/a.jpg', '2024/05/a-150x150.jpg'] });
  assert.is(fold([deleted!], state).exists, false);
});

test('projection: a document per attachment, indexed by media type and parent; deleted is gone', () => {
  const events = [...mediaDecider.decide(create, mediaDecider.initialState())];
  const recorded = (event: MediaEvent): RecordedEvent =>
    ({
      ...event,
      streamId: 'attachment-7',
      revision: 0,
      position: 1,
      id: 'x',
      metadata: { userId: 3, requestId: 'r', at: '' },
    }) as unknown as RecordedEvent;
  let doc = media.evolve(null, recorded(events[0]!), {} as never);
  assert.is(doc!.type, 'attachment');
  const index = media.index!(doc!, {} as never);
  assert.is((index.sets as Record<string, unknown>).media_type, 'image');
  assert.is((index.sets as Record<string, unknown>).parent, 0);
  assert.is((index.text as Record<string, unknown>).file, '2024/05/a.jpg');
  doc = media.evolve(doc, recorded({ type: 'AttachmentUpdated', data: { id: 7, changes: { post: 12 } } }), {} as never);
  assert.is(doc!.post, 12);
  assert.is(media.evolve(doc, recorded({ type: 'AttachmentDeleted', data: { id: 7, files: [] } }), {} as never), null);
});

test.run();
