/**
 * The deciders of contact forms and of feedback submissions: pure functions of (command, state). Time, ids,
 * the claimed slug and the acting user come in the command; the outcome of a submission (validation, mail)
 * is worked out before (feedback.ts and the operation) and only recorded here.
 */
import type { Decider } from '../../core/commandHandler';
import { AlreadyExists, NotFound } from '../../core/errors';
import type { ContactFormEvent, ContactFormFields, ContactFormSubmitted, SubmissionEvent } from './events';
import { applyInput } from './properties';
import type { ContactFormInput } from './properties';

export interface ContactFormState {
  exists: boolean;
  deleted: boolean;
  form: ContactFormFields | null;
}

export type ContactFormCommand =
  | {
      kind: 'create';
      id: number;
      slug: string;
      input: ContactFormInput;
      defaults: Omit<ContactFormFields, 'slug' | 'author' | 'date' | 'modified'>;
      actorId: number;
      now: string;
    }
  | { kind: 'update'; id: number; input: ContactFormInput; now: string }
  | { kind: 'delete'; id: number };

export const initialContactFormState = (): ContactFormState => ({ exists: false, deleted: false, form: null });

export function evolveContactForm(state: ContactFormState, event: ContactFormEvent): ContactFormState {
  switch (event.type) {
    case 'ContactFormCreated':
      return { exists: true, deleted: false, form: event.data.form };
    case 'ContactFormUpdated':
      return state.form ? { ...state, form: { ...state.form, ...event.data.changes } } : state;
    case 'ContactFormDeleted':
      return { ...state, exists: false, deleted: true };
  }
}

/** The form a write would leave (also what an unsaved write answers with). */
export function mergeContactForm(
  current: Omit<ContactFormFields, 'slug' | 'author' | 'date' | 'modified'>,
  input: ContactFormInput,
) {
  return {
    title: input.title ?? current.title,
    locale: input.locale ?? current.locale,
    properties: applyInput(current.properties, input),
  };
}

function decideContactForm(command: ContactFormCommand, state: ContactFormState): ContactFormEvent[] {
  const { id } = command;
  if (command.kind === 'create') {
    if (state.exists || state.deleted) throw new AlreadyExists('contactForm', 'id');
    const merged = mergeContactForm(command.defaults, command.input);
    const form: ContactFormFields = {
      ...merged,
      slug: command.slug,
      author: command.actorId,
      date: command.now,
      modified: command.now,
    };
    return [{ type: 'ContactFormCreated', data: { id, form } }];
  }
  const current = state.form;
  if (!state.exists || !current) throw new NotFound('contactForm');
  if (command.kind === 'delete') return [{ type: 'ContactFormDeleted', data: { id, slug: current.slug } }];

  const next = mergeContactForm(current, command.input);
  const changes: ContactFormUpdatedChanges = {};
  if (next.title !== current.title) changes.title = next.title;
  if (next.locale !== current.locale) changes.locale = next.locale;
  if (JSON.stringify(next.properties) !== JSON.stringify(current.properties)) changes.properties = next.properties;
  // A save stores the form (and its modification time) even when nothing changed, as a post update does.
  changes.modified = command.now;
  return [{ type: 'ContactFormUpdated', data: { id, changes } }];
}

type ContactFormUpdatedChanges = Extract<ContactFormEvent, { type: 'ContactFormUpdated' }>['data']['changes'];

export const contactFormDecider: Decider<ContactFormState, ContactFormCommand, ContactFormEvent> = {
  initialState: initialContactFormState,
  evolve: evolveContactForm,
  decide: decideContactForm,
};

// --- submissions -----------------------------------------------------------------------------------------------

export interface SubmissionState {
  recorded: boolean;
}

export type SubmissionCommand = { kind: 'record'; submission: ContactFormSubmitted };

/** A submission is recorded once; its stream holds nothing else. */
export const submissionDecider: Decider<SubmissionState, SubmissionCommand, SubmissionEvent> = {
  initialState: () => ({ recorded: false }),
  evolve: () => ({ recorded: true }),
  decide(command, state) {
    if (state.recorded) throw new AlreadyExists('submission', 'id');
    return [{ type: 'ContactFormSubmitted', data: command.submission }];
  },
};
