/**
 * The audit page's entry point: the sign-in form, and the router that shows the timeline, an item's history or
 * its state at a moment from the URL's fragment (`#/`, `#/item/content-12`, `#/item/content-12/as-of/<time>`).
 */
import { ApiError, credentials, forgetCredentials, get, keepCredentials } from './api.mjs';
import { h, replace } from './dom.mjs';
import { showAsOf, showHistory, showTimeline } from './views.mjs';

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const whoami = document.getElementById('whoami');

/** What the current view must undo when another replaces it (the live feed), and which showing is current. */
let leaving = () => {};
let showing = 0;

document.getElementById('sign-out').addEventListener('click', () => {
  forgetCredentials();
  route();
});
window.addEventListener('hashchange', () => route());

/** Shows the sign-in form, with a message when there is one (a refusal, an expired sign-in). */
function showSignIn(message) {
  nav.hidden = true;
  document.title = 'Sign in · Audit log';
  const alert = h('div', { class: 'alert', role: 'alert', id: 'sign-in-error' }, message ?? '');
  alert.hidden = !message;
  const username = h('input', {
    id: 'username',
    name: 'username',
    type: 'text',
    autocomplete: 'username',
    autocapitalize: 'off',
    spellcheck: 'false',
    required: true,
  });
  const password = h('input', {
    id: 'password',
    name: 'password',
    type: 'password',
    autocomplete: 'current-password',
    required: true,
  });
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    { class: 'sign-in', novalidate: true },
    h('h2', {}, 'Sign in'),
    h(
      'p',
      {},
      'Use an administrator\u2019s username and one of their application passwords. The password is kept in this tab only, until you sign out or close it.',
    ),
    alert,
    h('label', { for: 'username' }, 'Username'),
    username,
    h('label', { for: 'password' }, 'Application password'),
    password,
    h('div', { class: 'actions' }, button),
  );
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const given = { username: username.value.trim(), password: password.value.replace(/\s+/g, '') };
    const fail = (text) => {
      replace(alert, text);
      alert.hidden = false;
      button.disabled = false;
    };
    if (given.username === '' || given.password === '') return fail('Enter a username and an application password.');
    button.disabled = true;
    try {
      await get('core/v2/users/me', { context: 'edit' }, given);
      await get('audit/v1/events', { per_page: 1 }, given);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      if (error.status === 401)
        return fail(`Signing in failed: the username or application password is not correct. (${error.message})`);
      if (error.status === 403)
        return fail(`${given.username} may not read the audit log: it is for administrators only. (${error.message})`);
      return fail(error.message);
    }
    keepCredentials(given.username, given.password);
    route();
  });
  replace(main, form);
  username.focus();
}

/** Shows the view the fragment names; a sign-in that stopped working leads back to the form. */
async function route() {
  leaving();
  leaving = () => {};
  const generation = ++showing;
  const signedIn = credentials();
  if (!signedIn) return showSignIn();
  nav.hidden = false;
  replace(whoami, `Signed in as ${signedIn.username}`);
  const hash = window.location.hash.replace(/^#/, '') || '/';
  const [path, query = ''] = hash.split('?');
  let parts;
  try {
    parts = path
      .split('/')
      .filter((part) => part !== '')
      .map(decodeURIComponent);
  } catch {
    parts = null;
  }
  // Marked ready once shown, with the fragment it shows: what a test (or a person's tooling) can wait for.
  const view = h('div', { class: 'view', 'data-hash': window.location.hash });
  replace(main, view);
  const expired = (message) => {
    if (generation !== showing) return;
    forgetCredentials();
    showSignIn(`Your sign-in is no longer accepted: ${message}`);
  };
  // A view still loading when another was asked for undoes what it started at once.
  const onLeave = (undo) => {
    if (generation === showing) leaving = undo;
    else undo();
  };
  const context = { main: view, expired, onLeave };
  try {
    if (parts === null)
      replace(
        view,
        h(
          'div',
          { class: 'alert', role: 'alert' },
          'This address names no view of the audit log. ',
          h('a', { href: '#/' }, 'See the timeline.'),
        ),
      );
    else if (parts[0] === 'item' && parts[1] && parts[2] === 'as-of') await showAsOf(context, parts[1], parts[3] ?? '');
    else if (parts[0] === 'item' && parts[1]) await showHistory(context, parts[1]);
    else await showTimeline(context, new URLSearchParams(query));
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return expired(error.message);
    replace(
      view,
      h(
        'div',
        { class: 'alert', role: 'alert' },
        error instanceof ApiError ? error.message : `Something went wrong: ${error.message}`,
      ),
    );
  }
  view.dataset.ready = 'true';
}

route();
