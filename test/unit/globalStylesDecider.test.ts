/** Given events / when command / then events: a theme's user global styles, and what they may hold, without I/O. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  evolveGlobalStyles,
  globalStylesDecider,
  initialGlobalStylesState,
} from '../../src/resources/globalStyles/decider';
import type { GlobalStylesCommand, GlobalStylesState } from '../../src/resources/globalStyles/decider';
import type { GlobalStylesEvent } from '../../src/resources/globalStyles/events';
import { sanitizeSettings, sanitizeStyles } from '../../src/resources/globalStyles/sanitize';
import { rejectsWith } from '../support/domainErrors';

const test = suite('global styles decider');

const given = (events: GlobalStylesEvent[]): GlobalStylesState =>
  events.reduce(evolveGlobalStyles, initialGlobalStylesState());
const created: GlobalStylesEvent = {
  type: 'GlobalStylesCreated',
  data: { id: 7, stylesheet: 'palimpsest', title: 'Custom Styles' },
};
const change = (input: Extract<GlobalStylesCommand, { kind: 'change' }>['input']): GlobalStylesCommand => ({
  kind: 'change',
  input,
});

test('made once: a second making is nothing', () => {
  const create: GlobalStylesCommand = { kind: 'create', id: 9, stylesheet: 'palimpsest', title: 'Custom Styles' };
  assert.equal(globalStylesDecider.decide(create, given([])), [
    { type: 'GlobalStylesCreated', data: { id: 9, stylesheet: 'palimpsest', title: 'Custom Styles' } },
  ]);
  assert.equal(globalStylesDecider.decide(create, given([created])), []);
});

test("changing a record that does not exist is WordPress's 404", () => {
  rejectsWith(() => globalStylesDecider.decide(change({ styles: {} }), given([])), {
    code: 'not_found',
    subject: 'globalStyles',
  });
});

test('only what changed is recorded; styles and settings replace the stored ones whole, sanitized', () => {
  const state = given([
    created,
    {
      type: 'GlobalStylesChanged',
      data: { id: 7, changes: { styles: { color: { text: '#000' } }, settings: { appearanceTools: true } } },
    },
  ]);
  assert.equal(globalStylesDecider.decide(change({ styles: { color: { text: '#000' } } }), state), []);
  assert.equal(globalStylesDecider.decide(change({ styles: { typography: { fontSize: '2rem', bogus: 1 } } }), state), [
    { type: 'GlobalStylesChanged', data: { id: 7, changes: { styles: { typography: { fontSize: '2rem' } } } } },
  ]);
  assert.equal(globalStylesDecider.decide(change({ title: { raw: '' } }), state), []);
  assert.equal(globalStylesDecider.decide(change({ title: 'Mine' }), state), [
    { type: 'GlobalStylesChanged', data: { id: 7, changes: { title: 'Mine' } } },
  ]);
  assert.equal(globalStylesDecider.decide(change({ settings: [] }), state), [
    { type: 'GlobalStylesChanged', data: { id: 7, changes: { settings: {} } } },
  ]);
  assert.equal(globalStylesDecider.decide(change({ styles: 'x', settings: null }), state), []);
});

test('sanitizing: theme.json version 2 keys only, emptied objects dropped, nulls kept, block names checked', () => {
  assert.equal(
    sanitizeStyles({
      color: { background: 'red', shade: 1 },
      spacing: 'wide',
      shadow: { anything: true },
      elements: {
        link: { ':hover': { color: { text: 'x' } }, ':before': {} },
        h1: { typography: { fontSize: '3em' } },
        aside: { color: {} },
      },
      blocks: {
        'core/group': { border: { radius: '2px' }, elements: { link: { color: { text: 'y' } } } },
        'core/Group': { color: { text: 'z' } },
        'my-plugin/box': { nope: 1 },
      },
      typography: null,
    }),
    {
      color: { background: 'red' },
      shadow: { anything: true },
      elements: { link: { ':hover': { color: { text: 'x' } } }, h1: { typography: { fontSize: '3em' } } },
      blocks: { 'core/group': { border: { radius: '2px' }, elements: { link: { color: { text: 'y' } } } } },
      typography: null,
    },
  );
  assert.equal(
    sanitizeSettings({
      custom: { any: { depth: [1] } },
      layout: { contentSize: '640px', width: 1 },
      color: { palette: { theme: [] }, x: 1 },
      blocks: { 'core/paragraph': { typography: { dropCap: false } } },
      version: 2,
    }),
    {
      custom: { any: { depth: [1] } },
      layout: { contentSize: '640px' },
      color: { palette: { theme: [] } },
      blocks: { 'core/paragraph': { typography: { dropCap: false } } },
    },
  );
  // Keys that would reach a prototype are not theme.json keys.
  const hostile = JSON.parse('{"__proto__":{"polluted":1},"color":{"__proto__":{"x":1},"text":"#000"}}');
  assert.equal(sanitizeStyles(hostile), { color: { text: '#000' } });
  assert.is(({} as Record<string, unknown>).polluted, undefined);
});

test.run();
