/** The REST edge's answers to the domain's refusals: WordPress's code, message, status and data, byte for byte. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  AlreadyExists,
  CannotProcess,
  ConcurrentChange,
  type DomainError,
  ForbiddenByRule,
  InvalidTransition,
  InvalidValue,
  NotFound,
  NotPermitted,
  NothingChanged,
} from '../../src/core/errors';
import { answerableError, restErrorOf } from '../../src/rest/domainErrors';
import { restError } from '../../src/rest/errors';

const test = suite('domain errors at the REST edge');
const json = (error: DomainError) => JSON.parse(JSON.stringify(restErrorOf(error)));

test('not found: the id error of each resource, a 404', () => {
  assert.equal(json(new NotFound('post')), {
    code: 'rest_post_invalid_id',
    message: 'Invalid post ID.',
    data: { status: 404 },
  });
  assert.equal(json(new NotFound('attachment')), json(new NotFound('post')));
  assert.equal(json(new NotFound('menuItem')), json(new NotFound('post')));
  assert.equal(json(new NotFound('comment')), {
    code: 'rest_comment_invalid_id',
    message: 'Invalid comment ID.',
    data: { status: 404 },
  });
  assert.equal(json(new NotFound('term')), {
    code: 'rest_term_invalid',
    message: 'Term does not exist.',
    data: { status: 404 },
  });
  assert.equal(json(new NotFound('menu')), json(new NotFound('term')));
  assert.equal(json(new NotFound('user')), {
    code: 'rest_user_invalid_id',
    message: 'Invalid user ID.',
    data: { status: 404 },
  });
  assert.equal(json(new NotFound('applicationPassword')).code, 'rest_application_password_not_found');
  assert.equal(json(new NotFound('contactForm')), {
    code: 'wpcf7_not_found',
    message: 'The requested contact form was not found.',
    data: { status: 404 },
  });
  assert.equal(json(new NotFound('globalStyles')).code, 'rest_global_styles_not_found');
});

test('already exists: by id a 400 (a recorded submission a 409); term and menu names carry the existing id', () => {
  assert.equal(json(new AlreadyExists('post', 'id')), {
    code: 'rest_post_exists',
    message: 'Cannot create existing post.',
    data: { status: 400 },
  });
  assert.equal(json(new AlreadyExists('user', 'id')), {
    code: 'existing_user_login',
    message: 'Sorry, that username already exists!',
    data: { status: 400 },
  });
  assert.equal(json(new AlreadyExists('submission', 'id')).data, { status: 409 });
  assert.equal(json(new AlreadyExists('term', 'name', { existingId: 3, scope: 'parent' })), {
    code: 'term_exists',
    message: 'A term with the name provided already exists with this parent.',
    data: { status: 400, term_id: 3 },
    additional_data: [3, 3],
  });
  assert.is(
    json(new AlreadyExists('term', 'name', { existingId: 9, scope: 'taxonomy' })).message,
    'A term with the name provided already exists in this taxonomy.',
  );
  assert.equal(json(new AlreadyExists('menu', 'name', { existingId: 2, value: 'Main' })), {
    code: 'menu_exists',
    message: 'The menu name <strong>Main</strong> conflicts with another menu name. Please try another.',
    data: { status: 400, term_id: 2 },
    additional_data: [2],
  });
  assert.equal(json(new AlreadyExists('term', 'slug', { value: 'news' })), {
    code: 'duplicate_term_slug',
    message: 'The slug &#8220;news&#8221; is already in use by another term.',
    data: { status: 400 },
  });
  assert.equal(json(new AlreadyExists('applicationPassword', 'name', { value: 'x' })).data, { status: 409 });
  assert.equal(json(new AlreadyExists('comment', 'content', { existingId: 3 })).code, 'comment_duplicate');
});

test('transitions, rules and conflicts', () => {
  assert.equal(json(new InvalidTransition('post', 'trash', 'trash')), {
    code: 'rest_already_trashed',
    message: 'The post has already been deleted.',
    data: { status: 410 },
  });
  assert.is(json(new InvalidTransition('comment', 'trash', 'trash')).message, 'The comment has already been trashed.');
  assert.equal(json(new ForbiddenByRule('term', 'defaultTerm')), {
    code: 'rest_cannot_delete',
    message: 'Sorry, you are not allowed to delete this term.',
    data: { status: 403 },
  });
  assert.equal(json(new ForbiddenByRule('comment', 'flood')).data, { status: 400 });
  const message = 'url is set by the deployment (SITE_URL) and cannot be changed here.';
  assert.equal(json(new ForbiddenByRule('settings', 'ownedByDeployment', 'url')), {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): url',
    data: {
      status: 400,
      params: { url: message },
      details: { url: { code: 'rest_setting_read_only', message, data: null } },
    },
  });
  assert.equal(json(new ConcurrentChange('post-7')), {
    code: 'rest_conflict',
    message: 'The item was changed by another request at the same time. Please try again.',
    data: { status: 409 },
  });
});

test('invalid values: dates as invalid parameters, comment lengths by column, a custom link missing both title and url', () => {
  assert.equal(json(new InvalidValue('attachment', ['date_gmt'], 'unparsable')), {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): date_gmt',
    data: {
      status: 400,
      params: { date_gmt: 'Invalid date.' },
      details: { date_gmt: { code: 'rest_invalid_date', message: 'Invalid date.', data: null } },
    },
  });
  assert.equal(json(new InvalidValue('post', ['date'], 'outOfRange')), {
    code: 'invalid_date',
    message: 'Invalid date.',
    data: { status: 400 },
  });
  assert.is(
    json(new InvalidValue('post', ['sticky'], 'conflictsWithCurrent')).message,
    'A password protected post can not be set to sticky.',
  );
  assert.is(json(new InvalidValue('comment', ['author_email'], 'tooLong')).code, 'comment_author_email_column_length');
  assert.equal(json(new InvalidValue('term', ['name'], 'empty')), {
    code: 'empty_term_name',
    message: 'A name is required for this term.',
    data: { status: 400 },
  });
  assert.equal(json(new InvalidValue('menuItem', ['title', 'url'], 'required')), {
    code: 'rest_title_required',
    message: 'The title is required when using a custom menu item type.',
    data: { status: 400 },
    additional_errors: [
      {
        code: 'rest_url_required',
        message: 'The url is required when using a custom menu item type.',
        data: { status: 400 },
      },
    ],
  });
});

test('not found as a parent, an autosave, an attachment’s file', () => {
  assert.equal(json(new NotFound('menuItem', 'parent')), {
    code: 'rest_post_invalid_parent',
    message: 'Invalid post parent ID.',
    data: { status: 404 },
  });
  assert.equal(json(new NotFound('post', 'parent')), json(new NotFound('menuItem', 'parent')));
  assert.equal(json(new NotFound('autosave')), {
    code: 'rest_post_no_autosave',
    message: 'There is no autosave revision for this post.',
    data: { status: 404 },
  });
  assert.equal(json(new NotFound('attachmentFile')), {
    code: 'rest_unknown_attachment',
    message: 'Unable to get meta information for file.',
    data: { status: 404 },
  });
  assert.throws(() => restErrorOf(new NotFound('comment', 'parent')), /no REST answer/);
});

test('users: a taken login, email or slug; the email answered apart on create and on update', () => {
  assert.equal(json(new AlreadyExists('user', 'name', { value: 'ada' })), {
    code: 'existing_user_login',
    message: 'Sorry, that username already exists!',
    data: { status: 400 },
  });
  assert.equal(json(new AlreadyExists('user', 'email', { value: 'a@example.test', operation: 'create' })), {
    code: 'existing_user_email',
    message: 'Sorry, that email address is already used!',
    data: { status: 400 },
  });
  assert.equal(json(new AlreadyExists('user', 'email', { value: 'a@example.test' })).code, 'existing_user_email');
  assert.equal(json(new AlreadyExists('user', 'email', { value: 'a@example.test', operation: 'update' })), {
    code: 'rest_user_invalid_email',
    message: 'Invalid email address.',
    data: { status: 400 },
  });
  assert.equal(json(new AlreadyExists('user', 'slug', { value: 'ada' })), {
    code: 'rest_user_invalid_slug',
    message: 'Invalid slug.',
    data: { status: 400 },
  });
});

test('users: what WordPress’s user insertion refuses, each a 400 with its own code', () => {
  const answer = (error: InvalidValue) => {
    const { code, message, data } = json(error);
    return [code, message, data.status];
  };
  assert.equal(answer(new InvalidValue('user', ['login'], 'empty')), [
    'empty_user_login',
    'Cannot create a user with an empty login name.',
    400,
  ]);
  assert.equal(answer(new InvalidValue('user', ['login'], 'tooLong')), [
    'user_login_too_long',
    'Username may not be longer than 60 characters.',
    400,
  ]);
  assert.equal(answer(new InvalidValue('user', ['slug'], 'tooLong')), [
    'user_nicename_too_long',
    'Nicename may not be longer than 50 characters.',
    400,
  ]);
  assert.equal(answer(new InvalidValue('user', ['url'], 'tooLong')), [
    'user_url_too_long',
    'User URL may not be longer than 100 characters.',
    400,
  ]);
  assert.equal(answer(new InvalidValue('user', ['login'], 'unparsable')), [
    'invalid_username',
    'This username is invalid because it uses illegal characters. Please enter a valid username.',
    400,
  ]);
  assert.equal(answer(new InvalidValue('user', ['email'], 'unparsable')), [
    'invalid_email',
    'Invalid email address.',
    400,
  ]);
  assert.equal(answer(new InvalidValue('applicationPassword', ['name'], 'empty')), [
    'application_password_empty_name',
    'An application name is required to create an application password.',
    400,
  ]);
  assert.equal(json(new InvalidValue('user', ['email'], 'unparsable')).data, { status: 400 });
});

test('references to nothing: a term’s parent, a comment’s author', () => {
  assert.equal(json(new InvalidValue('term', ['parent'], 'unknownReference')), {
    code: 'rest_term_invalid',
    message: 'Parent term does not exist.',
    data: { status: 400 },
  });
  assert.equal(json(new InvalidValue('comment', ['author'], 'unknownReference')), {
    code: 'rest_comment_author_invalid',
    message: 'Invalid comment author ID.',
    data: { status: 400 },
  });
});

test('a webhook’s from_position: past the head names the head, one that is no position says so, under params only', () => {
  assert.equal(json(new InvalidValue('webhook', ['from_position'], 'outOfRange', { limit: 42 })), {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): from_position',
    data: { status: 400, params: { from_position: 'from_position is beyond the end of the log (42).' } },
  });
  assert.equal(json(new InvalidValue('webhook', ['from_position'], 'unknownReference')), {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): from_position',
    data: { status: 400, params: { from_position: 'from_position is not a position of the log.' } },
  });
});

test('an `as_of` moment that is no date: an invalid parameter, for posts and attachments alike', () => {
  const expected = {
    code: 'rest_invalid_param',
    message: 'Invalid parameter(s): as_of',
    data: {
      status: 400,
      params: { as_of: 'Invalid date.' },
      details: { as_of: { code: 'rest_invalid_date', message: 'Invalid date.', data: null } },
    },
  };
  assert.equal(json(new InvalidValue('post', ['as_of'], 'unparsable')), expected);
  assert.equal(json(new InvalidValue('attachment', ['as_of'], 'unparsable')), expected);
});

test('files: a refused type under the code of the way it came; no free name; an image that cannot be worked', () => {
  const refused = (upload: 'form' | 'body') =>
    json(new InvalidValue('attachment', ['file'], 'unsupportedType', { upload }));
  assert.equal(refused('form'), {
    code: 'rest_upload_unknown_error',
    message: 'Sorry, you are not allowed to upload this file type.',
    data: { status: 400 },
  });
  assert.equal(refused('body'), {
    code: 'rest_upload_sideload_error',
    message: 'Sorry, you are not allowed to upload this file type.',
    data: { status: 400 },
  });
  assert.equal(json(new AlreadyExists('attachmentFile', 'name', { value: 'a.jpg' })), {
    code: 'rest_upload_unknown_error',
    message: 'Could not find a free file name.',
    data: { status: 500 },
  });
  assert.equal(json(new CannotProcess('attachment', 'load')), {
    code: 'rest_unknown_image_file_type',
    message: 'Unable to edit this image.',
    data: { status: 400 },
  });
  assert.equal(json(new CannotProcess('attachment', 'rotate')), {
    code: 'rest_image_rotation_failed',
    message: 'Unable to rotate this image.',
    data: { status: 500 },
  });
  assert.equal(json(new CannotProcess('attachment', 'crop')), {
    code: 'rest_image_crop_failed',
    message: 'Unable to crop this image.',
    data: { status: 500 },
  });
});

test('an autosave that changes nothing, of a post or a menu item', () => {
  const expected = {
    code: 'rest_autosave_no_changes',
    message: 'There is nothing to save. The autosave and the post content are the same.',
    data: { status: 400 },
  };
  assert.equal(json(new NothingChanged('post', 'autosave')), expected);
  assert.equal(json(new NothingChanged('menuItem', 'autosave')), expected);
});

test('not permitted: 401 for a caller who did not sign in, 403 for one who did; history names the type', () => {
  assert.equal(json(new NotPermitted('post', 'readHistory', false, { postType: 'page' })), {
    code: 'rest_cannot_read',
    message: 'Sorry, you are not allowed to view the history of this page.',
    data: { status: 401 },
  });
  assert.equal(json(new NotPermitted('post', 'readHistory', true, { postType: 'wp_block' })), {
    code: 'rest_cannot_read',
    message: 'Sorry, you are not allowed to view the history of this wp_block.',
    data: { status: 403 },
  });
  assert.is(
    json(new NotPermitted('attachment', 'readHistory', true)).message,
    'Sorry, you are not allowed to view the history of this attachment.',
  );
  assert.equal(json(new NotPermitted('menuItem', 'readAutosaves', true)), {
    code: 'rest_cannot_read',
    message: 'Sorry, you are not allowed to view autosaves of this post.',
    data: { status: 403 },
  });
  assert.equal(json(new NotPermitted('menuItem', 'readRevisions', false)), {
    code: 'rest_cannot_read',
    message: 'Sorry, you are not allowed to view revisions of this post.',
    data: { status: 401 },
  });
  assert.equal(json(new NotPermitted('menuItem', 'edit', true)), {
    code: 'rest_cannot_edit',
    message: 'Sorry, you are not allowed to edit this post.',
    data: { status: 403 },
  });
  assert.throws(() => restErrorOf(new NotPermitted('comment', 'edit', true)), /no REST answer/);
});

test('a refusal the edge does not know is a fault, not an answer; RestErrors pass through; anything else is no refusal', () => {
  assert.throws(() => restErrorOf(new NotFound('settings')), /no REST answer/);
  assert.throws(() => restErrorOf(new InvalidValue('post', ['title'], 'tooLong')), /no REST answer/);
  const rest = restError('rest_forbidden', 'No.', 403);
  assert.is(answerableError(rest), rest);
  assert.is(answerableError(new Error('boom')), null);
  assert.is(answerableError(new NotFound('post'))?.code, 'rest_post_invalid_id');
});

test.run();
