/** The REST edge's answers to the domain's refusals: WordPress's code, message, status and data, byte for byte. */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  AlreadyExists,
  ConcurrentChange,
  type DomainError,
  ForbiddenByRule,
  InvalidTransition,
  InvalidValue,
  NotFound,
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

test('a refusal the edge does not know is a fault, not an answer; RestErrors pass through; anything else is no refusal', () => {
  assert.throws(() => restErrorOf(new NotFound('settings')), /no REST answer/);
  assert.throws(() => restErrorOf(new InvalidValue('post', ['title'], 'tooLong')), /no REST answer/);
  const rest = restError('rest_forbidden', 'No.', 403);
  assert.is(answerableError(rest), rest);
  assert.is(answerableError(new Error('boom')), null);
  assert.is(answerableError(new NotFound('post'))?.code, 'rest_post_invalid_id');
});

test.run();
