/**
 * The WordPress post editor as a page on its own origin: @wordpress/edit-post's `initializeEditor()`, unchanged,
 * talking to a palimpsest site through api-fetch. Built into one script by esbuild, beside a style sheet of the
 * packages' own styles (test/support/editorBundle.ts). The page gives its configuration as JSON in
 * `<script id="editor-config">`: `root` (the site's `/wp-json/`), `auth` (an `Authorization` header value: Basic with
 * an application password), `postType`, `postId` and `settings` (the editor settings WordPress would print into
 * post.php).
 *
 * `window.wp.data` is the registry the editor runs on (edit-post uses @wordpress/data's default registry), so a
 * script on the page can read and drive the editor's stores, e.g. `wp.data.dispatch('core/editor').autosave()`.
 */
import apiFetch from '@wordpress/api-fetch';
import * as data from '@wordpress/data';
import { initializeEditor } from '@wordpress/edit-post';

const config = JSON.parse(document.getElementById('editor-config').textContent);

// What wp-admin does with wpApiSettings, minus the cookie nonce: every request goes to the site's REST root, and
// carries the application password instead.
apiFetch.use(apiFetch.createRootURLMiddleware(config.root));
apiFetch.use((options, next) => next({ ...options, headers: { ...options.headers, Authorization: config.auth } }));

window.wp = { data, apiFetch };

// No first-run guide over the editor.
data.dispatch('core/preferences').set('core/edit-post', 'welcomeGuide', false);

initializeEditor('editor', config.postType, config.postId, config.settings, {});
