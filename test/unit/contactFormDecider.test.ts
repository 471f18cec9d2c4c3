/** The contact-form decider, the form-tag scanner and the feedback judgement: pure functions, no site. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contactFormDecider, submissionDecider } from '../../src/resources/contactForms/decider';
import type { ContactFormCommand, ContactFormState } from '../../src/resources/contactForms/decider';
import { scanFormTags } from '../../src/resources/contactForms/formTags';
import { evaluateSubmission } from '../../src/resources/contactForms/feedback';
import { defaultProperties } from '../../src/resources/contactForms/properties';
import { rejectsWith } from '../support/domainErrors';

const NOW = '2024-05-01T12:00:00';
const defaults = { title: 'Untitled', locale: 'en_US', properties: defaultProperties() };
const create: ContactFormCommand = {
  kind: 'create',
  id: 7,
  slug: 'hello',
  input: { title: 'Hello' },
  defaults,
  actorId: 3,
  now: NOW,
};

const fold = (commands: ContactFormCommand[]): ContactFormState => {
  let state = contactFormDecider.initialState();
  for (const command of commands)
    for (const event of contactFormDecider.decide(command, state)) state = contactFormDecider.evolve(state, event);
  return state;
};

const rejects = rejectsWith;

test('create records the whole form with its defaults; a second create is refused', () => {
  const events = contactFormDecider.decide(create, contactFormDecider.initialState());
  assert.is(events.length, 1);
  assert.is(events[0]!.type, 'ContactFormCreated');
  const form = (events[0]!.data as unknown as { form: Record<string, unknown> }).form;
  assert.equal(
    { title: form.title, slug: form.slug, locale: form.locale, author: form.author, date: form.date },
    { title: 'Hello', slug: 'hello', locale: 'en_US', author: 3, date: NOW },
  );
  rejects(() => contactFormDecider.decide(create, fold([create])), {
    code: 'already_exists',
    subject: 'contactForm',
    by: 'id',
  });
});

test('update records only what changed, plus the modification time; unknown or deleted forms are not found', () => {
  const state = fold([create]);
  const [event] = contactFormDecider.decide(
    { kind: 'update', id: 7, input: { title: 'Hello', locale: 'ja', form: '[text x]' }, now: '2024-05-02T00:00:00' },
    state,
  );
  const changes = (event!.data as { changes: Record<string, unknown> }).changes;
  assert.equal(Object.keys(changes).sort(), ['locale', 'modified', 'properties']);
  assert.is((changes.properties as { form: string }).form, '[text x]');
  assert.is((changes.properties as { mail: unknown }).mail, state.form!.properties.mail);
  rejects(
    () => contactFormDecider.decide({ kind: 'update', id: 8, input: {}, now: NOW }, contactFormDecider.initialState()),
    { code: 'not_found', subject: 'contactForm' },
  );
  const deleted = fold([create, { kind: 'delete', id: 7 }]);
  assert.equal([deleted.exists, deleted.deleted], [false, true]);
  rejects(() => contactFormDecider.decide({ kind: 'delete', id: 7 }, deleted), {
    code: 'not_found',
    subject: 'contactForm',
  });
  rejects(() => contactFormDecider.decide(create, deleted), {
    code: 'already_exists',
    subject: 'contactForm',
    by: 'id',
  });
});

test('a submission is recorded once', () => {
  const submission = {
    submission: 'u',
    formId: 7,
    status: 'spam' as const,
    postedData: {},
    invalidFields: [],
    unitTag: '',
    mailSkipped: false,
    remoteIp: '',
    userAgent: '',
  };
  const [event] = submissionDecider.decide({ kind: 'record', submission }, submissionDecider.initialState());
  assert.is(event!.type, 'ContactFormSubmitted');
  rejects(
    () =>
      submissionDecider.decide(
        { kind: 'record', submission },
        submissionDecider.evolve(submissionDecider.initialState(), event!),
      ),
    { code: 'already_exists', subject: 'submission', by: 'id' },
  );
});

test('form-tags: names, options, quoted values with pipes, escaped and unknown tags', () => {
  const tags = scanFormTags(
    '[[text skipped]] [date d] [select* pick id:p "One|1" \'Two\'] [text bad!name] [submit "Go"]',
  );
  assert.equal(
    tags.map((t) => t.type),
    ['select*', 'submit'],
  );
  assert.equal(tags[0], {
    type: 'select*',
    basetype: 'select',
    name: 'pick',
    options: ['id:p'],
    raw_values: ['One|1', 'Two'],
    labels: ['One', 'Two'],
    values: ['One', 'Two'],
    pipes: [
      ['One', '1'],
      ['Two', 'Two'],
    ],
    content: '',
  });
  assert.equal(tags[1]!.raw_values, ['Go']);
});

test('feedback: order of the checks and the first problem of each field', () => {
  const properties = { ...defaultProperties(), form: '[text* a] [email b] [acceptance ok]', additional_settings: '' };
  const base = { unitTag: 'u1', userAgent: 'agent/1', signedIn: false };
  const invalid = evaluateSubmission(properties, { ...base, posted: { b: 'nope' } });
  assert.is(invalid.status, 'validation_failed');
  assert.equal(
    invalid.invalidFields.map((f) => [f.field, f.message, f.error_id]),
    [
      ['a', 'Please fill out this field.', 'u1-ve-a'],
      ['b', 'Please enter an email address.', 'u1-ve-b'],
    ],
  );
  assert.is(evaluateSubmission(properties, { ...base, posted: { a: 'x' } }).status, 'acceptance_missing');
  assert.is(evaluateSubmission(properties, { ...base, posted: { a: 'x', ok: '1' }, userAgent: '' }).status, 'spam');
  const ready = evaluateSubmission(properties, { ...base, posted: { a: ' x ', ok: '1', _wpcf7: '5' } });
  assert.is(ready.status, 'ready');
  assert.equal(ready.postedData, { a: ' x ', b: '', ok: '1' });
  const asValidation = evaluateSubmission(
    { ...properties, additional_settings: 'acceptance_as_validation: on' },
    { ...base, posted: { a: 'x' } },
  );
  assert.equal(
    asValidation.invalidFields.map((f) => f.message),
    ['You must accept the terms and conditions before sending your message.'],
  );
});

test.run();
